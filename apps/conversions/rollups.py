"""The daily rollups (DailyRollup, public schema): a site's counts per day and traffic
source, added to in the transaction of each event (`rollup_add`: one INSERT ... ON
CONFLICT DO UPDATE), so the dashboard reads a few thousand rows instead of every site's
members and payments. `rollups_rebuild` recounts days from the sites' own rows
(command `conversions_rollup_rebuild`, and nightly for the last two days); visits are
kept as they are, since no other row remembers them."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from django.db import connection, transaction
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone
from django_tenants.utils import tenant_context

from apps.conversions.models import DailyRollup

DIMENSIONS = ("network", "ref", "sub1", "lander", "campaign")
COUNTERS = (
    "visits",
    "signups",
    "confirmations",
    "first_purchases",
    "purchases",
    "revenue",
    "refunds",
    "refunded",
    "chargebacks",
    "charged_back",
)
_MAX = {name: DailyRollup._meta.get_field(name).max_length for name in DIMENSIONS}
_TABLE = DailyRollup._meta.db_table
_KEY = ("site_id", "day", *DIMENSIONS, "currency")


def source_of(tracking: dict) -> dict[str, str]:
    """The rollup's dimensions of a member's (or visitor's) tracking: the network in
    lower case, as networks are named."""
    source = {name: str(tracking.get(name) or "")[: _MAX[name]] for name in DIMENSIONS}
    source["network"] = source["network"].strip().lower()
    return source


def _upsert_sql(rows: int, *, replace: bool) -> str:
    columns = (*_KEY, *COUNTERS)
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * rows)
    if replace:
        sets = ", ".join(f"{name} = EXCLUDED.{name}" for name in COUNTERS if name != "visits")
    else:
        sets = ", ".join(f"{name} = {_TABLE}.{name} + EXCLUDED.{name}" for name in COUNTERS)
    # Names from the model's meta, values as parameters.
    insert = f"INSERT INTO {_TABLE} ({', '.join(columns)}) VALUES {values} "  # noqa: S608
    return insert + f"ON CONFLICT ({', '.join(_KEY)}) DO UPDATE SET {sets}"


def rollup_add(*, site_id: int, tracking: dict, day: date | None = None, currency: str = "", **counts: int) -> None:
    """Add `counts` (names of COUNTERS) to the site's row of the day and source."""
    unknown = set(counts) - set(COUNTERS)
    if unknown:
        raise ValueError(f"not a rollup counter: {sorted(unknown)}")
    source = source_of(tracking)
    row = [site_id, day or timezone.localdate(), *(source[name] for name in DIMENSIONS), currency or ""]
    row += [int(counts.get(name, 0)) for name in COUNTERS]
    with connection.cursor() as cursor:
        cursor.execute(_upsert_sql(1, replace=False), row)


def rows_insert(rows: list[tuple], *, replace: bool = False, batch: int = 1000) -> None:
    """Insert (or add to, or with `replace` set the counters other than visits of) whole
    rows: tuples of _KEY then COUNTERS."""
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            cursor.execute(_upsert_sql(len(chunk), replace=replace), [value for row in chunk for value in row])


def _site_counts(first: date, last: date) -> dict[tuple, dict[str, int]]:
    """The current site's counts per (day, source, currency) between the two days, from
    its own rows: signups and confirmations on the day of the signup (a confirmation's
    own day is not kept), purchases and revenue on the day paid, refunds and chargebacks
    on the day the payment last changed."""
    from apps.accounts.models import SignupTracking, UserStatus
    from apps.payments.models import Payment, PaymentStatus

    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    fields = tuple("user__tracking__" + name for name in DIMENSIONS)
    tracking_rows = (
        SignupTracking.objects.annotate(day=TruncDate("created"))
        .filter(day__gte=first, day__lte=last)
        .values("day", *DIMENSIONS, "user__status")
        .annotate(n=Count("pk"))
    )
    for row in tracking_rows:
        key = (row["day"], *source_of(row).values(), "")
        counts[key]["signups"] += row["n"]
        if row["user__status"] not in (UserStatus.NOT_CONFIRMED,):
            counts[key]["confirmations"] += row["n"]
    paid = list(
        Payment.objects.filter(status=PaymentStatus.PAID, paid_at__isnull=False)
        .order_by("paid_at", "pk")
        .values("pk", "user_id", "paid_at", "amount", "currency", *fields)
    )
    seen_members: set[int] = set()
    for payment in paid:
        first_one = payment["user_id"] not in seen_members
        seen_members.add(payment["user_id"])
        day = timezone.localdate(payment["paid_at"])
        if not first <= day <= last:
            continue
        tracking = {name: payment["user__tracking__" + name] for name in DIMENSIONS}
        key = (day, *source_of(tracking).values(), payment["currency"])
        counts[key]["first_purchases" if first_one else "purchases"] += 1
        counts[key]["revenue"] += payment["amount"]
    returned = (
        Payment.objects.filter(updated__date__gte=first, updated__date__lte=last)
        .exclude(amount_refunded=0, amount_charged_back=0)
        .values("updated", "amount_refunded", "amount_charged_back", "currency", *fields)
    )
    for payment in returned:
        tracking = {name: payment["user__tracking__" + name] for name in DIMENSIONS}
        key = (timezone.localdate(payment["updated"]), *source_of(tracking).values(), payment["currency"])
        if payment["amount_refunded"]:
            counts[key]["refunds"] += 1
            counts[key]["refunded"] += payment["amount_refunded"]
        if payment["amount_charged_back"]:
            counts[key]["chargebacks"] += 1
            counts[key]["charged_back"] += payment["amount_charged_back"]
    return counts


def rollups_rebuild(*, site, first: date, last: date) -> int:
    """Recount the site's rollups of the days from `first` to `last` (visits kept).
    Returns the rows written."""
    with tenant_context(site):
        counts = _site_counts(first, last)
    rows = [(site.pk, key[0], *key[1:], *(values.get(name, 0) for name in COUNTERS)) for key, values in counts.items()]
    with transaction.atomic():
        zeroes = {name: 0 for name in COUNTERS if name != "visits"}
        DailyRollup.objects.filter(site_id=site.pk, day__gte=first, day__lte=last).update(**zeroes)
        rows_insert(rows, replace=True)
    return len(rows)


def rollups_rebuild_days(*, days: int, sites=None) -> int:
    from apps.tenants.models import Site

    last = timezone.localdate()
    first = last - timedelta(days=days - 1)
    written = 0
    for site in sites if sites is not None else Site.objects.exclude(schema_name="public"):
        written += rollups_rebuild(site=site, first=first, last=last)
    return written
