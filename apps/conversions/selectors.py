"""The revenue dashboard's numbers, read from the daily rollups only (never a site's
own tables): totals per group of the breakdown, and a series per day, week or month."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from django.db.models import F, Sum
from django.db.models.functions import TruncDay, TruncMonth, TruncWeek

from apps.conversions.models import DailyRollup

PERIODS = {"day": TruncDay, "week": TruncWeek, "month": TruncMonth}
BREAKDOWNS = ("site", "network", "ref", "sub1", "lander", "campaign")
COUNTS = ("visits", "signups", "confirmations", "first_purchases", "purchases", "refunds", "chargebacks")
MONEY = ("revenue", "refunded", "charged_back")
GROUPS_SHOWN = 100  # rows of the breakdown on the page; the CSV has them all


@dataclass
class Line:
    """One row of a table: counts, and money per currency (minor units)."""

    label: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    money: dict[str, dict[str, int]] = field(default_factory=lambda: {name: defaultdict(int) for name in MONEY})

    def add(self, row: dict) -> None:
        for name in COUNTS:
            self.counts[name] += row[name] or 0
        if row["currency"]:
            for name in MONEY:
                self.money[name][row["currency"]] += row[name] or 0

    def rate(self, part: str, whole: str) -> float | None:
        whole_value = self.counts[whole]
        return None if not whole_value else self.counts[part] / whole_value

    def revenue_per_signup(self, currency: str) -> int | None:
        signups = self.counts["signups"]
        return None if not signups else round(self.money["revenue"].get(currency, 0) / signups)

    def net(self, currency: str) -> int:
        return (
            self.money["revenue"].get(currency, 0)
            - self.money["refunded"].get(currency, 0)
            - self.money["charged_back"].get(currency, 0)
        )


def _rows(*, first: date, last: date, site_id: int | None, network: str, group: list, extra: dict):
    rows = DailyRollup.objects.filter(day__gte=first, day__lte=last)
    if site_id is not None:
        rows = rows.filter(site_id=site_id)
    if network:
        rows = rows.filter(network=network)
    sums = {name: Sum(name) for name in (*COUNTS, *MONEY)}
    return rows.annotate(**extra).values(*group, "currency").annotate(**sums).order_by()


def report(*, first: date, last: date, site_id: int | None, period: str, by: str, network: str = "") -> dict:
    """Totals, the breakdown (by `by`) and the series (per `period`) of the days from
    `first` to `last`, of one site or all."""
    from apps.tenants.models import Site

    key = "site_id" if by == "site" else by
    total = Line("total")
    groups: dict[str, Line] = {}
    for row in _rows(first=first, last=last, site_id=site_id, network=network, group=[key], extra={}):
        total.add(row)
        label = row[key]
        groups.setdefault(label, Line(str(label))).add(row)
    if by == "site":
        names = dict(Site.objects.filter(pk__in=[k for k in groups if k]).values_list("pk", "name"))
        for site_key, line in groups.items():
            line.label = names.get(site_key, str(site_key))
    series: dict[date, Line] = {}
    trunc = PERIODS[period]
    extra = {"period": trunc(F("day"))}
    for row in _rows(first=first, last=last, site_id=site_id, network=network, group=["period"], extra=extra):
        start = row["period"].date() if hasattr(row["period"], "date") else row["period"]
        series.setdefault(start, Line(start.isoformat())).add(row)
    currencies = sorted(total.money["revenue"], key=lambda c: -total.money["revenue"][c]) or []
    ordered = sorted(
        groups.values(),
        key=lambda line: (-line.counts["signups"], -sum(line.money["revenue"].values()), line.label),
    )
    return {
        "total": total,
        "groups": ordered,
        "series": [series[start] for start in sorted(series)],
        "currencies": currencies,
    }
