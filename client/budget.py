"""``--budget USD``: the run stops asking new instances once what it has spent reaches the budget.

The spend counts every attempt already in the run folder (a resumed run continues the same total), so
re-running with a larger ``--budget`` completes the run. Requests in flight when the budget is reached
finish and are kept (the spend may pass the budget by at most those: about ``--concurrency`` instances).
"""

from __future__ import annotations

import math

from .pricing import PRICES_AS_OF, Price, format_usd


class BudgetError(ValueError):
    """--budget cannot be used as given (one line for the user)."""


def check_budget(limit: float | None, price: Price | None, label: str) -> None:
    if limit is None:
        return
    if not isinstance(limit, (int, float)) or not math.isfinite(limit) or limit <= 0:
        raise BudgetError(f"--budget must be a number of USD > 0, got {limit!r}")
    if price is None:
        raise BudgetError(f"--budget needs the model's price: {label} is not in the price table "
                          f"({PRICES_AS_OF}); give --price-in and --price-out (USD per million tokens)")


class Budget:
    def __init__(self, limit: float, spent: float = 0.0):
        self.limit = float(limit)
        self.spent = float(spent)
        self.n_unknown = 0  # attempts whose cost is unknown (a reply without token counts)

    def add(self, usd: float | None) -> None:
        if usd is None:
            self.n_unknown += 1
        else:
            self.spent += usd

    @property
    def reached(self) -> bool:
        return self.spent >= self.limit

    def stop_message(self, n_left: int, unit: str = "instance") -> str:
        unknown = (f"; {self.n_unknown} attempt{'s' if self.n_unknown != 1 else ''} of unknown cost not counted"
                   if self.n_unknown else "")
        return (f"budget reached: {format_usd(self.spent)} spent of --budget {format_usd(self.limit)}{unknown}; "
                f"{n_left} {unit}{'s' if n_left != 1 else ''} not asked; re-run the same command with a larger "
                f"--budget to resume")
