"""The task-family registry: one line per family. Each name is a package ``span/benchmark/<name>/``
whose ``FAMILY`` (family.TaskFamily) has that name; ``families.py`` loads them in this order (the first is
the paper's, read for instances that carry no reasoning type). Adding a family: its package, one line
here, its tests."""

FAMILY_MODULES: tuple[str, ...] = (
    "paper",      # the SPAN paper's 12 templates (Table 1): the default
    "extended",   # beyond the paper: cross-calendar ordering and duration questions
    "dateaug",    # DateAugBench (Date Fragments paper): format switching, date arithmetic over four periods
)
