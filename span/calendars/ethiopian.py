"""Ethiopian calendar, Amete Mihret era (the Ethiopian civil and church calendar).

The Coptic calendar's arithmetic with an epoch 276 years later: 1 Meskerem 1 = Julian
29 August 8. Pagume (month 13) has 5 days, 6 in a leap year (year % 4 == 3).
The Amete Alem era (years + 5500) is not supported.
"""

from . import julian
from .coptic import Alexandrian


class Ethiopian(Alexandrian):
    name = "ethiopian"
    title = "Ethiopian"
    aliases = ("ethiopian", "ethiopic", "amete mihret", "ethiopian amete mihret", "ge'ez", "geez",
               "ethiopic amete mihret", "ethiopian calendar", "ethiopic calendar", "eritrean")
    epoch = julian.new_year(8) + 241  # Julian 29 August 8 (8 is a Julian leap year)
    month_note = "12 months of 30 days, then Pagume = month 13 (5 days, 6 in a leap year (year % 4 == 3))."
    description = ("Ethiopian calendar, Amete Mihret era: 12 months of 30 days (Meskerem=1 … Nehase=12) "
                   "and Pagume = 13 with 5 days, 6 in leap years (year % 4 == 3). 1 Meskerem = Gregorian "
                   "11 September (12 September before a Gregorian leap year, 1900–2098, and in 2099); "
                   "the year number is 7 or 8 behind the Gregorian one.")
    month_names = {1: "Meskerem", 2: "Tikimt", 3: "Hidar", 4: "Tahsas", 5: "Tir", 6: "Yekatit",
                   7: "Megabit", 8: "Miyazya", 9: "Ginbot", 10: "Sene", 11: "Hamle", 12: "Nehase",
                   13: "Pagume"}
    month_name_variants = {
        "meskerem": 1, "maskaram": 1, "meskerrem": 1, "mäskäräm": 1, "meskarem": 1,
        "tikimt": 2, "tekemt": 2, "teqemt": 2, "tiqimt": 2, "tikemt": 2, "tikimit": 2, "ṭəqəmt": 2,
        "hidar": 3, "hedar": 3, "khidar": 3, "hdar": 3,
        "tahsas": 4, "tahesas": 4, "tahisas": 4, "takhsas": 4, "tahas": 4,
        "tir": 5, "ter": 5, "tirr": 5, "terr": 5,
        "yekatit": 6, "yakatit": 6, "yekkatit": 6, "yakkatit": 6,
        "megabit": 7, "maggabit": 7, "megabbit": 7, "magabit": 7,
        "miyazya": 8, "miazia": 8, "miyaziya": 8, "miyazia": 8,
        "ginbot": 9, "genbot": 9, "gunbot": 9, "ginbat": 9,
        "sene": 10, "sane": 10, "senie": 10,
        "hamle": 11, "hamleh": 11, "hamli": 11,
        "nehase": 12, "nahase": 12, "nehasse": 12, "nahasse": 12, "nahasie": 12,
        "pagume": 13, "pagumen": 13, "paguemen": 13, "pagumay": 13, "pagume'": 13, "puagme": 13,
    }


CALENDAR = Ethiopian()
