"""What support reads: members found across sites, and one member's page, read in the
member's own site schema (call member_overview inside tenant_context(entry.site))."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Q, QuerySet
from django_tenants.utils import get_public_schema_name

from apps.support.models import AuditEntry
from apps.tenants.models import MemberDirectoryEntry, Site

LEDGER_ROWS = 30
PAYMENT_ROWS = 20
MAIL_ROWS = 20
LIST_ROWS = 50
# A payment's public id (apps.payments.models._public_id: 16 URL-safe characters) or a
# gateway's id (Mollie "tr_…", the sandbox's "sbx_…"). Other search terms (names,
# addresses) never cost a look into every site's payments.
PAYMENT_ID = re.compile(r"^(?:[A-Za-z0-9_-]{16}|[a-z]{2,5}_[A-Za-z0-9_-]{3,95})$")
# Schemas per statement when a payment id is looked up on every site.
SCHEMAS_PER_QUERY = 250


def payment_owners(payment_id: str) -> list[tuple[int, int]]:
    """(site id, member id) of the payments with this public or gateway id, on any site:
    one UNION ALL of index lookups per SCHEMAS_PER_QUERY sites, so a support search
    costs a few queries however many sites there are, and no second copy of the
    payments has to be kept in step."""
    if not PAYMENT_ID.match(payment_id or ""):
        return []
    sites = list(
        Site.objects.exclude(schema_name=get_public_schema_name()).order_by("pk").values_list("pk", "schema_name")
    )
    found: list[tuple[int, int]] = []
    quote = connection.ops.quote_name
    for start in range(0, len(sites), SCHEMAS_PER_QUERY):
        chunk = sites[start : start + SCHEMAS_PER_QUERY]
        parts, params = [], []
        for site_id, schema in chunk:
            # Only an int and a quoted schema name are formatted in; the id is a parameter.
            parts.append(
                f"SELECT {int(site_id)}, user_id FROM {quote(schema)}.payments_payment "  # noqa: S608
                "WHERE (public_id = %s OR provider_id = %s) AND user_id IS NOT NULL"
            )
            params += [payment_id, payment_id]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(parts), params)
            found += [(int(site_id), int(user_id)) for site_id, user_id in cursor.fetchall()]
    return found


def member_search(queryset: QuerySet, term: str) -> QuerySet:
    """Directory entries matching an e-mail address, a name, a member id or a payment id."""
    term = (term or "").strip()
    if not term:
        return queryset
    condition = Q(email__istartswith=term) | Q(name__istartswith=term)
    if term.isdigit() and len(term) < 19:
        condition |= Q(member_id=int(term))
    for site_id, member_id in payment_owners(term):
        condition |= Q(site_id=site_id, member_id=member_id)
    return queryset.filter(condition)


def member_of(entry: MemberDirectoryEntry):
    """The account the entry stands for, in the current (the entry's site's) schema."""
    return get_user_model().objects.filter(pk=entry.member_id).first()


def traffic_source(tracking) -> list[tuple[str, str]]:
    """The member's tracking kept at signup (network, ref, sub1-3, aff_sub*, cpc, lander,
    campaign) as (name, value) pairs, only those given."""
    if tracking is None:
        return []
    names = (*tracking.TRACKING_FIELDS, *tracking.LANDER_FIELDS)
    return [(name, getattr(tracking, name)) for name in names if getattr(tracking, name)]


def member_overview(entry: MemberDirectoryEntry, member) -> dict:
    """Everything the member page shows, read in the member's site schema."""
    from allauth.account.models import EmailAddress

    from apps.credits.models import CreditEntry
    from apps.credits.selectors import ledger_balance
    from apps.notifications.models import Channel, Notice
    from apps.payments.models import DirectDebitRequest, Payment
    from apps.profiles.models import Block, Complaint, Photo, Profile

    profile = Profile.objects.filter(user=member).first()
    photos = list(Photo.objects.filter(profile=profile)) if profile else []
    complaints_about = (
        list(Complaint.objects.filter(profile=profile).select_related("reporter")[:LIST_ROWS]) if profile else []
    )
    return {
        "member": member,
        "profile": profile,
        "photos": photos,
        "tracking": getattr(member, "tracking", None),  # None when the member has none
        "traffic_source": traffic_source(getattr(member, "tracking", None)),
        "email_verified": EmailAddress.objects.filter(user=member, email__iexact=member.email, verified=True).exists(),
        "ledger": ledger_balance(member),
        "entries": list(CreditEntry.objects.filter(user_id=member.pk).select_related("payment")[:LEDGER_ROWS]),
        "payments": list(Payment.objects.filter(user_id=member.pk).prefetch_related("refunds")[:PAYMENT_ROWS]),
        "direct_debits": list(DirectDebitRequest.objects.filter(user_id=member.pk).order_by("-pk")[:LIST_ROWS]),
        "blocks_made": list(Block.objects.filter(blocker=member).select_related("blocked")[:LIST_ROWS]),
        "blocks_received": (
            list(Block.objects.filter(blocked=profile).select_related("blocker")[:LIST_ROWS]) if profile else []
        ),
        "complaints_about": complaints_about,
        "complaints_by": list(Complaint.objects.filter(reporter=member).select_related("profile")[:LIST_ROWS]),
        "safety": chat_safety_counts(member, profile),
        "mails": list(
            Notice.objects.filter(channel=Channel.EMAIL)
            .filter(Q(user=member) | Q(email__iexact=member.email))
            .order_by("-created")[:MAIL_ROWS]
        ),
    }


def chat_safety_counts(member, profile) -> dict:
    """The member's chat messages with scam signals, per signal, and what became of those
    held for review; and how many different members complained about them. Two queries."""
    from apps.chat.models import Message, MessageReview
    from apps.chat.safety import SIGNALS
    from apps.profiles.models import Complaint

    counts = (
        Message.objects.filter(sender_id=member.pk)
        .exclude(signals="")
        .aggregate(
            flagged=Count("pk"),
            held=Count("pk", filter=Q(review=MessageReview.HELD)),
            rejected=Count("pk", filter=Q(review=MessageReview.REJECTED)),
            noticed=Count("pk", filter=Q(review=MessageReview.NOTICE)),
            **{f"signal_{code}": Count("pk", filter=Q(signals__contains=code)) for code in SIGNALS},
        )
    )
    reporters = (
        Complaint.objects.filter(profile=profile, reporter__isnull=False).values("reporter_id").distinct().count()
        if profile
        else 0
    )
    return {
        "flagged": counts["flagged"],
        "held": counts["held"],
        "rejected": counts["rejected"],
        "noticed": counts["noticed"],
        "signals": [(code, counts[f"signal_{code}"]) for code in SIGNALS if counts[f"signal_{code}"]],
        "reporters": reporters,
    }


def member_audit(entry: MemberDirectoryEntry) -> QuerySet:
    return AuditEntry.objects.filter(site_id=entry.site_id, member_id=entry.member_id).order_by("-created", "-pk")
