"""The revenue dashboard's numbers, read from the daily rollups only (never a site's
own tables): totals per group of the breakdown, and a series per day, week or month,
from one query over the days' rows (the series is summed per day in SQL and per week or
month here, a few hundred rows at most)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db import connection

from apps.conversions.models import DailyRollup

PERIODS = ("day", "week", "month")
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


# The columns a breakdown groups by; also the only names that reach the SQL below.
_COLUMNS = {
    "site": "site_id",
    "network": "network",
    "ref": "ref",
    "sub1": "sub1",
    "lander": "lander",
    "campaign": "campaign",
}
# Money is only on the rows with a currency (the purchases'), so the other rows (most of
# them: signups and visits) skip its bigint sums, the costly ones (they add in numeric).
_SUMS = ", ".join(
    [f"SUM({name})::bigint AS {name}" for name in COUNTS]
    + [f"SUM({name}) FILTER (WHERE currency <> '')::bigint AS {name}" for name in MONEY]
)


def period_start(day: date, period: str) -> date:
    """The first day of the day's period: the day, its ISO week's Monday, or the first
    of its month."""
    if period == "week":
        return day - timedelta(days=day.weekday())
    if period == "month":
        return day.replace(day=1)
    return day


def _rows(*, first: date, last: date, site_id: int | None, network: str, column: str) -> list[tuple]:
    """One scan of the days' rollups, summed twice at once (GROUPING SETS): per group of
    the breakdown and currency, and per day and currency. Each row: (key, day, currency,
    by_day, *COUNTS, *MONEY); `by_day` says which of the two sums it is."""
    where, params = ["day >= %s", "day <= %s"], [first, last]
    if site_id is not None:
        where.append("site_id = %s")
        params.append(site_id)
    if network:
        where.append("network = %s")
        params.append(network)
    # Table and column names come from the model and _COLUMNS, values are parameters.
    sql = (
        f"SELECT {column} AS key, day, currency, GROUPING(day) = 0 AS by_day, {_SUMS} "  # noqa: S608
        f"FROM {DailyRollup._meta.db_table} WHERE {' AND '.join(where)} "
        f"GROUP BY GROUPING SETS (({column}, currency), (day, currency))"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


_N = len(COUNTS)


def _add(sums: dict, key, currency: str, values) -> None:
    """Add a row's values to `sums[key]`: [counts, {currency: money}] as lists, the
    cheapest to add to row by row (a breakdown by site is a thousand groups)."""
    entry = sums.get(key)
    if entry is None:
        entry = sums[key] = [[0] * _N, {}]
    counts = entry[0]
    for index in range(_N):
        counts[index] += values[index] or 0
    if currency:
        money = entry[1].get(currency)
        if money is None:
            money = entry[1][currency] = [0] * len(MONEY)
        for index in range(len(MONEY)):
            money[index] += values[_N + index] or 0


def _line(label: str, entry: list) -> Line:
    line = Line(label)
    line.counts = dict(zip(COUNTS, entry[0], strict=True))
    for currency, values in entry[1].items():
        for name, value in zip(MONEY, values, strict=True):
            line.money[name][currency] = value
    return line


def report(
    *, first: date, last: date, site_id: int | None, period: str, by: str, network: str = "", site_names=None
) -> dict:
    """Totals, the breakdown (by `by`) and the series (per `period`) of the days from
    `first` to `last`, of one site or all, from one query. `site_names` (pk to name) labels
    the sites of a breakdown by site; without it they are read."""
    from apps.tenants.models import Site

    if period not in PERIODS or by not in _COLUMNS:
        raise ValueError(f"no such period or breakdown: {period!r}, {by!r}")
    total: dict = {}
    groups: dict = {}
    series: dict = {}
    for key, day, currency, by_day, *values in _rows(
        first=first, last=last, site_id=site_id, network=network, column=_COLUMNS[by]
    ):
        if by_day:
            _add(series, period_start(day, period), currency, values)
        else:
            _add(groups, key, currency, values)
            _add(total, None, currency, values)
    labels = {key: str(key) for key in groups}
    if by == "site":
        if site_names is None:
            site_names = dict(Site.objects.filter(pk__in=[k for k in groups if k]).values_list("pk", "name"))
        labels = {key: site_names.get(key, str(key)) for key in groups}
    lines = [_line(labels[key], entry) for key, entry in groups.items()]
    total_line = _line("total", total[None]) if total else Line("total")
    revenue = total_line.money["revenue"]
    currencies = sorted(revenue, key=lambda c: -revenue[c])
    ordered = sorted(
        lines,
        key=lambda line: (-line.counts["signups"], -sum(line.money["revenue"].values()), line.label),
    )
    return {
        "total": total_line,
        "groups": ordered,
        "series": [_line(start.isoformat(), series[start]) for start in sorted(series)],
        "currencies": currencies,
    }


def others(lines: list[Line], label: str) -> Line:
    """One line with the sums of `lines` (the groups past the ones a page shows)."""
    line = Line(label)
    for other in lines:
        for name in COUNTS:
            line.counts[name] += other.counts[name]
        for name in MONEY:
            for currency, value in other.money[name].items():
                line.money[name][currency] += value
    return line
