"""Member search (spec §3 "Search state", §4 "Search results", issue 4): the filters and
their defaults, validation, keyset pagination, cached counts and similar results.

Every list starts from `profiles_visible_to`. Reads only; the API view and the pages
call `search_params_parse` and then `search_run`."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from functools import cache, cached_property

from django.conf import settings
from django.db import connection, transaction
from django.db.models.base import Model, ModelState
from django.db.models.signals import post_init, pre_init
from django.http import QueryDict
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

# Up to accounts: visitors from a partner's link may search where the site allows it (the tracking cookie).
from apps.accounts.tracking import has_tracking_network
from apps.common.cache import volatile_get, volatile_get_many, volatile_get_or_set, volatile_set
from apps.common.exceptions import ApplicationError
from apps.common.prepared import server_cursor
from apps.profiles.cards import CARD_FIELDS, profile_cards
from apps.profiles.models import (
    Block,
    BodyType,
    EyeColor,
    Gender,
    HairColor,
    Photo,
    Profile,
    RelationshipStatus,
    Sexuality,
    Tattoos,
)
from apps.profiles.selectors import looking_for_genders, verified_q
from apps.profiles.visibility import profiles_visible_to
from apps.tenants.constants import SEARCHABLE_PROFILE_FIELDS
from apps.tenants.models import Site
from apps.tenants.regions import regions_for_country

PAGE_SIZE = 24
MAX_AGE = 99
# `page` without a cursor reads OFFSET rows; past this the island's cursor must be used.
MAX_PAGE = 500
COUNT_TTL = 60
# Counts are exact up to COUNT_CAP; past it the answer says "1,000+" (`num_results_capped`).
# An exact count reads every match: 15,000 to 50,000 rows, 40 to 90 ms of PostgreSQL, for a
# new set of filters on a site of 1,000,000 profiles, which any member could ask for again
# and again. A count stops at COUNT_LIMIT matches. Any count of COUNT_CAP + PAGE_SIZE or
# more is "at least that many": a first page with similar results has fewer than PAGE_SIZE
# exact matches, so widened filters counted that high still hold more than COUNT_CAP
# similar ones. The HIDDEN_SLACK above it lets a member's count subtract what only they
# cannot see (their own profile, a few blocks) from every visitor's count at the limit.
COUNT_CAP = 1000
HIDDEN_SLACK = 64
COUNT_LIMIT = COUNT_CAP + PAGE_SIZE + HIDDEN_SLACK
# A visitor's page of results is the same for every visitor with the same filters,
# page and language: it is kept this long (seconds), like the count above.
VISITOR_PAGE_TTL = 30
CURSOR_TTL = 600
SIMILAR_AGE_WIDENING = 5
ALL_GENDERS = "all"

# The site's search fields that are single choices; "interests" is a list of the site's.
CHOICE_FIELDS: dict[str, type] = {
    "relationship_status": RelationshipStatus,
    "body_type": BodyType,
    "hair_color": HairColor,
    "eye_color": EyeColor,
    "tattoos": Tattoos,
    "sexuality": Sexuality,
}
FIELD_LABELS = {
    "gender": gettext_lazy("gender"),
    "relationship_status": gettext_lazy("relationship status"),
    "body_type": gettext_lazy("body type"),
    "hair_color": gettext_lazy("hair colour"),
    "eye_color": gettext_lazy("eye colour"),
    "tattoos": gettext_lazy("tattoos"),
    "sexuality": gettext_lazy("sexuality"),
    "interests": gettext_lazy("interests"),
}


# The query parameter that limits a search (and the swipe game) to verified members.
VERIFIED_PARAM = "verified"


@dataclass(frozen=True)
class SearchFilters:
    """What a search looks for. `country` empty means any of `countries` (the site's)."""

    genders: tuple[str, ...]
    country: str
    countries: tuple[str, ...]
    region: str
    min_age: int
    max_age: int
    # (name, value) of the site's search fields, sorted; interests' value is a tuple.
    fields: tuple[tuple[str, str | tuple[str, ...]], ...] = ()
    # Only profiles with the "verified" badge (apps.profiles.services.verification).
    verified: bool = False

    def key(self) -> str:
        """Stable across processes; the cache adds the site's schema."""
        return self._key

    @cached_property
    def _key(self) -> str:
        # A search asks for it up to three times (the count, the cursors, a visitor's page).
        raw = json.dumps([self.genders, self.country, self.countries, self.region, self.min_age, self.max_age,
                          self.fields, *(["verified"] if self.verified else [])])  # fmt: skip
        return hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()

    def payload(self, *, niche_genders: tuple[str, ...]) -> dict:
        """The filters as the island shows them (and as query parameters)."""
        if len(niche_genders) == 1:
            gender = niche_genders[0]
        elif set(self.genders) >= set(niche_genders):
            gender = ALL_GENDERS
        else:
            gender = self.genders[0]
        data: dict = {
            "gender": gender,
            "country": self.country,
            "region": self.region,
            "min_age": self.min_age,
            "max_age": self.max_age,
        }
        for name, value in self.fields:
            data[name] = list(value) if isinstance(value, tuple) else value
        if self.verified:
            data[VERIFIED_PARAM] = "1"
        return data


@dataclass
class SearchRequest:
    filters: SearchFilters
    page: int = 1
    cursor: tuple[datetime, int] | None = None
    niche_genders: tuple[str, ...] = field(default=(Gender.MALE, Gender.FEMALE))
    # A member's block list, read with their own profile while parsing (search_run reads
    # it itself when absent).
    hidden: Hidden | None = None


@dataclass
class SearchResult:
    results: list[Profile]
    page: int
    num_results: int
    has_more: bool
    next_cursor: str | None
    similar: list[Profile]
    num_similar: int
    filters: dict

    @property
    def num_results_capped(self) -> bool:
        return self.num_results > COUNT_CAP

    @property
    def num_similar_capped(self) -> bool:
        return self.num_similar > COUNT_CAP


# --- Who may search ---------------------------------------------------------------


def search_allowed(request) -> bool:
    """Members always; visitors when the site lets them (spec §6), possibly only those
    who came through a tracking network."""
    if request.user.is_authenticated:
        return True
    site: Site = request.site
    return bool(site.logged_out_search or (site.logged_out_search_trafficsource and has_tracking_network(request)))


def search_forbidden_error() -> ApplicationError:
    return ApplicationError("authentication_required", _("Log in or sign up to search members."), status_code=403)


# --- Parameters -------------------------------------------------------------------


def own_profile(user) -> Profile | None:
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        return user.profile
    except Profile.DoesNotExist:
        return None


def niche_genders(site: Site) -> tuple[str, ...]:
    """The genders a site shows at all: a visitor's default."""
    return tuple(looking_for_genders(site=site, gender="", sexuality=""))


def search_defaults(*, site: Site, profile: Profile | None) -> SearchFilters:
    """Members: the genders they look for and their own country when the site has it;
    visitors: every gender of the niche and the site's first country. All ages."""
    codes = tuple(site.country_codes)
    if profile is not None:
        genders = looking_for_genders(site=site, gender=profile.gender, sexuality=profile.sexuality)
        own_country = profile.country.code if profile.country else ""
        country = own_country if own_country in codes else codes[0]
    else:
        genders = list(niche_genders(site))
        country = codes[0]
    return SearchFilters(
        genders=tuple(sorted(genders)),
        country=country,
        countries=codes,
        region="",
        min_age=site.min_age,
        max_age=MAX_AGE,
    )


def _encode_cursor(created: datetime, pk: int) -> str:
    raw = json.dumps([created.isoformat(), pk]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(value: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        created, pk = json.loads(raw)
        moment = datetime.fromisoformat(created)
        if moment.tzinfo is None or not isinstance(pk, int) or isinstance(pk, bool):
            raise ValueError
        return moment, pk
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ValueError from None


def search_params_parse(*, site: Site, viewer, params: QueryDict | dict) -> SearchRequest:
    """The search from query parameters, with the defaults for what is absent or blank.
    Raises ApplicationError("invalid_search") with a translated message per bad parameter
    in `fields`. Parameters of fields the site does not search on are ignored."""
    if not isinstance(params, QueryDict):
        query = QueryDict(mutable=True)
        for key, value in params.items():
            for item in value if isinstance(value, list | tuple) else [value]:
                query.appendlist(key, str(item))
        params = query
    # The member's own profile and block list in one statement; the profile stays on the user.
    hidden = _viewer_hidden(viewer)
    profile = own_profile(viewer)
    defaults = search_defaults(site=site, profile=profile)
    allowed_genders = niche_genders(site)
    errors: dict[str, list[str]] = {}

    def value(name: str) -> str:
        return (params.get(name) or "").strip()

    def invalid_choice(name: str) -> str:
        return _("This is not a valid choice for %(field)s.") % {"field": FIELD_LABELS[name]}

    genders = defaults.genders
    gender = value("gender")
    if gender == ALL_GENDERS:
        genders = tuple(sorted(allowed_genders))
    elif gender:
        if gender in allowed_genders:
            genders = (gender,)
        else:
            errors["gender"] = [invalid_choice("gender")]

    country = defaults.country
    if value("country"):
        if value("country").upper() in defaults.countries:
            country = value("country").upper()
        else:
            errors["country"] = [_("This country is not available on this site.")]

    region = value("region").upper()
    if region and "country" not in errors and region not in {item["code"] for item in regions_for_country(country)}:
        errors["region"] = [_("This region does not belong to the chosen country.")]
        region = ""

    ages = {"min_age": defaults.min_age, "max_age": defaults.max_age}
    for name in ("min_age", "max_age"):
        if not value(name):
            continue
        try:
            age = int(value(name))
        except ValueError:
            age = -1
        if not site.min_age <= age <= MAX_AGE:
            errors[name] = [
                _("Choose an age from %(min_age)s to %(max_age)s.") % {"min_age": site.min_age, "max_age": MAX_AGE}
            ]
        else:
            ages[name] = age
    if "min_age" not in errors and "max_age" not in errors and ages["min_age"] > ages["max_age"]:
        errors["max_age"] = [_("The maximum age cannot be lower than the minimum age.")]

    fields: list[tuple[str, str | tuple[str, ...]]] = []
    for name in site.search_fields:
        if name not in SEARCHABLE_PROFILE_FIELDS:
            continue
        if name == "interests":
            chosen = [item.strip() for raw in params.getlist(name) for item in raw.split(",") if item.strip()]
            if not chosen:
                continue
            if any(item not in site.interests for item in chosen):
                errors[name] = [invalid_choice(name)]
            else:
                fields.append((name, tuple(sorted(set(chosen)))))
        elif value(name):
            if value(name) in CHOICE_FIELDS[name].values:
                fields.append((name, value(name)))
            else:
                errors[name] = [invalid_choice(name)]

    verified = value(VERIFIED_PARAM) == "1"
    if value(VERIFIED_PARAM) not in ("", "0", "1"):
        errors[VERIFIED_PARAM] = [_("This is not a valid choice for %(field)s.") % {"field": _("photos")}]

    page = 1
    if value("page"):
        try:
            page = int(value("page"))
        except ValueError:
            page = 0
        # With a cursor the page number only labels the answer: no offset is read.
        if page < 1 or (page > MAX_PAGE and not value("cursor")):
            errors["page"] = [_("Choose a page from 1 to %(max)s.") % {"max": MAX_PAGE}]
    cursor = None
    if value("cursor"):
        try:
            cursor = _decode_cursor(value("cursor"))
        except ValueError:
            errors["cursor"] = [_("This list has changed. Please search again.")]

    if errors:
        first = next(iter(errors.values()))[0]
        raise ApplicationError("invalid_search", first, extra={"fields": errors})
    filters = SearchFilters(
        genders=genders,
        country=country,
        countries=defaults.countries,
        region=region,
        min_age=ages["min_age"],
        max_age=ages["max_age"],
        fields=tuple(sorted(fields)),
        verified=verified,
    )
    return SearchRequest(filters=filters, page=page, cursor=cursor, niche_genders=allowed_genders, hidden=hidden)


# --- Queries ----------------------------------------------------------------------
#
# A member's search is a handful of statements (their own profile with the block list,
# the page, the count when the cache does not have it, the similar results'), and the
# ORM compiling each of them cost more than the database running it. So they are SQL
# with parameters, built here from the filters: who may be seen at all comes from
# `profiles_visible_to(None)` and the "verified" condition from `verified_q`, each
# compiled by the ORM once per process (apps.profiles.visibility and selectors stay
# their homes), and the rows become model instances as the ORM's would (same fields).
# They run through `server_cursor`: PostgreSQL binds the parameters (psycopg quotes no
# value into the text). The member's own profile with blocks, a read by key, is prepared
# on the connection too; the page and the counts are not, since their best plan depends
# on the values (an index read in order and stopped at the page's end, or the matches
# read and sorted) and PostgreSQL may keep one generic plan for a prepared statement.


@dataclass(frozen=True)
class Hidden:
    """What a member may not see beyond what every visitor misses: `users`, their own
    account and the members who blocked them; `profiles`, the profiles they blocked."""

    users: tuple[int, ...]
    profiles: tuple[int, ...]

    @property
    def blocks(self) -> bool:
        return bool(self.profiles) or len(self.users) > 1


@cache
def _q(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _column(model, name: str) -> str:
    return f"{_q(model._meta.db_table)}.{_q(model._meta.get_field(name).column)}"


@cache
def _compiled_where(kind: str) -> tuple[str, str, tuple]:
    """(FROM, WHERE, params) of the profiles every visitor may see ("visible") or of the
    verified condition ("verified"), as the ORM writes them, on "profiles_profile"."""
    queryset = profiles_visible_to(None) if kind == "visible" else Profile.objects.filter(verified_q())
    sql, params = queryset.values("pk").query.sql_with_params()
    _select, found_from, rest = sql.partition(" FROM ")
    from_sql, found_where, where_sql = rest.partition(" WHERE ")
    if not (found_from and found_where) or " ORDER BY " in where_sql:
        raise RuntimeError(f"unexpected SQL for {kind} profiles: {sql}")
    return from_sql, where_sql, tuple(params)


@cache
def _card_fields() -> tuple[tuple, tuple]:
    """The Profile and Photo fields a card reads (CARD_FIELDS), in model order."""
    own = {name for name in CARD_FIELDS if "__" not in name} | {"id", "main_photo"}
    photo = {name.split("__", 1)[1] for name in CARD_FIELDS if name.startswith("main_photo__")} | {"id"}
    return (
        tuple(item for item in Profile._meta.concrete_fields if item.name in own),
        tuple(item for item in Photo._meta.concrete_fields if item.name in photo),
    )


@cache
def _converters(model, fields: tuple) -> tuple:
    """(index, column, functions) of the fields whose values the ORM converts after
    reading them, in its order (the backend's, then the field's); none today."""
    found = []
    for index, item in enumerate(fields):
        column = item.get_col(model._meta.db_table)
        functions = [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]
        if functions:
            found.append((index, column, tuple(functions)))
    return tuple(found)


@cache
def _row_fields(kind: str) -> tuple[type, tuple]:
    """The model and fields of the rows the statements here read: "card" and "card photo"
    (a page), "viewer" (the member's own profile)."""
    own_fields, photo_fields = _card_fields()
    if kind == "card":
        return Profile, own_fields
    if kind == "card photo":
        return Photo, photo_fields
    if kind == "viewer":
        return Profile, tuple(Profile._meta.concrete_fields)
    raise ValueError(kind)


def _orm_instance(model, fields: tuple, values):
    """A model instance from the columns of `fields`, as the ORM makes it from a row."""
    converters = _converters(model, fields)
    if converters:
        values = list(values)
        for index, column, functions in converters:
            for function in functions:
                values[index] = function(values[index], column, connection)
    return model.from_db(connection.alias, [item.attname for item in fields], values)


@cache
def _quick_maker(kind: str):
    """For rows whose values need no conversion: a function making the instance as
    `Model.__init__` does (each value set on it, through the field's descriptor where
    the model has one that sets: a foreign key's id, a country), in the state of a loaded
    row, without walking every field of the model per row. None when a value needs
    converting."""
    model, fields = _row_fields(kind)
    if _converters(model, fields):
        return None
    plain, described = [], []
    for index, item in enumerate(fields):
        descriptor = getattr(model, item.attname, None)
        (described if hasattr(type(descriptor), "__set__") else plain).append((item.attname, index))
    plain_names = tuple(name for name, _index in plain)
    plain_at = tuple(index for _name, index in plain)
    described_at = tuple(described)
    alias = connection.alias

    def make(values):
        instance = model.__new__(model)
        state = instance._state = ModelState()
        state.adding, state.db = False, alias
        instance.__dict__.update(zip(plain_names, [values[index] for index in plain_at], strict=True))
        for name, index in described_at:
            setattr(instance, name, values[index])
        return instance

    return make


def _maker(kind: str):
    """A function making instances from rows of `kind` (_row_fields). The ORM's own
    `from_db` when a receiver listens to the model's creation (an image field's
    dimensions), the model has an `__init__` or `from_db` of its own, or a value needs
    converting, else the same made directly: the ORM's
    `__init__` walks every field of the model per row, which cost a page of 25 cards more
    than reading it."""
    model, fields = _row_fields(kind)
    quick = _quick_maker(kind)
    own = model.__init__ is not Model.__init__ or model.from_db.__func__ is not Model.from_db.__func__
    if quick is None or own or pre_init.has_listeners(model) or post_init.has_listeners(model):
        return lambda values: _orm_instance(model, fields, values)
    return quick


@cache
def _viewer_sql() -> str:
    profile_table, block_table = _q(Profile._meta.db_table), _q(Block._meta.db_table)
    _model, fields = _row_fields("viewer")
    columns = ", ".join(_column(Profile, item.name) for item in fields)
    blocker, blocked = _q(Block._meta.get_field("blocker").column), _q(Block._meta.get_field("blocked").column)
    sql = (
        f"SELECT {columns}, "  # noqa: S608 (names from the models, values as parameters)
        f"ARRAY(SELECT {blocked} FROM {block_table} WHERE {blocker} = %s), "
        f"ARRAY(SELECT {blocker} FROM {block_table} WHERE {blocked} = {_column(Profile, 'id')} AND {blocker} <> %s) "
        f"FROM (SELECT 1) AS {_q('one')} LEFT OUTER JOIN {profile_table} ON {_column(Profile, 'user')} = %s"
    )
    return sql


def _viewer_hidden(viewer) -> Hidden | None:
    """A member's own profile and block list in one statement (visitors: None). The profile
    is kept on the user, so `own_profile(viewer)` reads nothing more."""
    if not getattr(viewer, "is_authenticated", False):
        return None
    with server_cursor() as cursor:
        cursor.execute(_viewer_sql(), [viewer.pk, viewer.pk, viewer.pk])
        *values, blocked_profiles, blocker_users = cursor.fetchone()
    relation = Profile._meta.get_field("user").remote_field
    if not relation.is_cached(viewer):
        profile = None
        if values[0] is not None:
            profile = _maker("viewer")(values)
        relation.set_cached_value(viewer, profile)
    return Hidden(users=(viewer.pk, *blocker_users), profiles=tuple(blocked_profiles))


def _years_ago(today: date, years: int) -> date:
    try:
        return today.replace(year=today.year - years)
    except ValueError:  # 29 February
        return today.replace(year=today.year - years, day=28)


def filters_sql(filters: SearchFilters) -> tuple[str, list]:
    """The filters as one condition on Profile's own columns (no joins), so that it can
    also be excluded (similar results leave the exact matches out)."""
    today = timezone.localdate()
    born = _column(Profile, "date_of_birth")
    parts = [f"{born} <= %s", f"{born} > %s"]
    params: list = [_years_ago(today, filters.min_age), _years_ago(today, filters.max_age + 1)]
    # Both genders is no gender filter, so the index without gender serves it.
    if set(filters.genders) != set(Gender.values):
        if len(filters.genders) > 1:
            parts.append(f"{_column(Profile, 'gender')} = ANY(%s)")
            params.append(list(filters.genders))
        else:
            parts.append(f"{_column(Profile, 'gender')} = %s")
            params.append(filters.genders[0])
    if filters.country:
        parts.append(f"{_column(Profile, 'country')} = %s")
        params.append(filters.country)
    else:
        parts.append(f"{_column(Profile, 'country')} = ANY(%s)")
        params.append(list(filters.countries))
    if filters.region:
        parts.append(f"{_column(Profile, 'region')} = %s")
        params.append(filters.region)
    for name, value in filters.fields:
        if name == "interests":
            array_type = Profile._meta.get_field("interests").db_type(connection)
            parts.append(f"{_column(Profile, 'interests')} @> %s::{array_type}")
            params.append(list(value))
        else:
            parts.append(f"{_column(Profile, name)} = %s")
            params.append(value)
    if filters.verified:
        _from, where, verified_params = _compiled_where("verified")
        parts.append(where)
        params.extend(verified_params)
    return " AND ".join(parts), params


def _matches_sql(
    filters: SearchFilters, *, hidden: Hidden | None, leave_out: SearchFilters | None = None
) -> tuple[str, str, list]:
    """(FROM, WHERE, params) of what this viewer may see matching `filters`, less the
    matches of `leave_out` (the similar results leave the exact ones out)."""
    from_sql, where, params = _compiled_where("visible")
    conditions, condition_params = filters_sql(filters)
    where = f"{where} AND {conditions}"
    params = [*params, *condition_params]
    if leave_out is not None:
        exact, exact_params = filters_sql(leave_out)
        where += f" AND NOT COALESCE(({exact}), false)"
        params += exact_params
    if hidden is not None:
        where += f" AND NOT (COALESCE({_column(Profile, 'user')} = ANY(%s), false)"
        params.append(list(hidden.users))
        if hidden.profiles:
            where += f" OR {_column(Profile, 'id')} = ANY(%s)"
            params.append(list(hidden.profiles))
        where += ")"
    return from_sql, where, params


def page_sql(
    filters: SearchFilters,
    *,
    hidden: Hidden | None = None,
    leave_out: SearchFilters | None = None,
    cursor: tuple[datetime, int] | None = None,
    offset: int = 0,
    limit: int = PAGE_SIZE,
) -> tuple[str, list]:
    """One page of matches with what their cards read, newest first (-created, -id),
    after `cursor` (keyset) or from `offset`."""
    from_sql, where, params = _matches_sql(filters, hidden=hidden, leave_out=leave_out)
    photo_table = _q(Photo._meta.db_table)
    created, pk = _column(Profile, "created"), _column(Profile, "id")
    columns = _page_columns()
    if cursor is not None:
        where += f" AND {created} <= %s AND ({created} < %s OR {pk} < %s)"
        params += [cursor[0], cursor[0], cursor[1]]
    sql = (
        f"SELECT {columns} FROM {from_sql} LEFT OUTER JOIN {photo_table} "  # noqa: S608 (as above)
        f"ON ({_column(Profile, 'main_photo')} = {_column(Photo, 'id')}) WHERE {where} "
        f"ORDER BY {created} DESC, {pk} DESC LIMIT %s"
    )
    params.append(limit)
    if offset:
        sql += " OFFSET %s"
        params.append(offset)
    return sql, params


@cache
def _page_columns() -> str:
    """What a page reads: the card's own fields, then its main photo's."""
    own_fields, photo_fields = _card_fields()
    created = _column(Profile, "created")
    return ", ".join(
        [_CREATED_MICROSECONDS.format(created) if index == _created_at() else _column(Profile, item.name)
         for index, item in enumerate(own_fields)]
        + [_column(Photo, item.name) for item in photo_fields]
    )  # fmt: skip


# A page's `created` is read as microseconds since the epoch: Django reads a timestamp with
# a time zone through a loader of its own written in Python (psycopg's own is in C), which
# cost 0.1 ms of CPU per page of 25 rows, a third of reading the rows. The number becomes
# the same datetime, in the connection's zone, as that loader gives.
_CREATED_MICROSECONDS = "(EXTRACT(EPOCH FROM {}) * 1000000)::bigint"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@cache
def _created_at() -> int | None:
    """Where `created` is among the card's own fields, when it is read as a number (with
    time zones on; without, Django's loader gives naive local times and it is read as it is)."""
    if not settings.USE_TZ:
        return None
    return next(index for index, item in enumerate(_card_fields()[0]) if item.name == "created")


def _listed(sql: str, params: list) -> list[Profile]:
    """The rows of `page_sql` as profiles with their main photo loaded, as the ORM's
    `select_related("main_photo").only(*CARD_FIELDS)` would make them."""
    split, created_at = len(_card_fields()[0]), _created_at()
    main_photo = Profile._meta.get_field("main_photo")
    with server_cursor(prepare=False) as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        zone = cursor.db.timezone
    make_profile, make_photo = _maker("card"), _maker("card photo")
    profiles = []
    for row in rows:
        values = row[:split]
        if created_at is not None:
            created = _EPOCH + timedelta(microseconds=values[created_at])
            if zone is not UTC:
                created = created.astimezone(zone)
            values = (*values[:created_at], created, *values[created_at + 1 :])
        profile = make_profile(values)
        photo = make_photo(row[split:]) if row[split] is not None else None
        main_photo.set_cached_value(profile, photo)
        profiles.append(profile)
    return profiles


def _count_sql(filters: SearchFilters, hidden_users: tuple[int, ...] = (), hidden_profiles: tuple[int, ...] = ()):
    """Every visitor's matches, up to COUNT_LIMIT; or with `hidden_*` (not limited: they
    are few) only those among them this viewer may not see."""
    from_sql, where, params = _matches_sql(filters, hidden=None)
    params = list(params)
    hidden = []
    # Without COALESCE: a profile without a user is simply not among them (NULL), and the
    # conditions stay on the user and primary keys' indexes (a probe, not a scan of the matches).
    if hidden_users:
        hidden.append(f"{_column(Profile, 'user')} = ANY(%s)")
        params.append(list(hidden_users))
    if hidden_profiles:
        hidden.append(f"{_column(Profile, 'id')} = ANY(%s)")
        params.append(list(hidden_profiles))
    if hidden:
        where += f" AND ({' OR '.join(hidden)})"
        return f"SELECT COUNT(*) FROM {from_sql} WHERE {where}", params  # noqa: S608 (as above)
    return _limited_count(from_sql, where, params)


def _limited_count(from_sql: str, where: str, params: list) -> tuple[str, list]:
    """COUNT(*) of the rows, reading COUNT_LIMIT of them at most."""
    sql = f"SELECT COUNT(*) FROM (SELECT 1 FROM {from_sql} WHERE {where} LIMIT %s) AS matches"  # noqa: S608 (as above)
    return sql, [*params, COUNT_LIMIT]


def _scalar(sql: str, params: list, *, serial: bool = False) -> int:
    """The statement's one value. `serial` (a `_limited_count` that missed the cache): planned
    without parallel workers. PostgreSQL chose a parallel plan for some counts (a region's),
    whose workers cost 15 to 19 ms where one process reads the 1,088 entries in 5 ms (EXPLAIN
    ANALYZE at 1,000,000 profiles); the setting ends with its transaction, three statements
    more on a count's miss only."""
    with transaction.atomic() if serial else contextlib.nullcontext(), server_cursor(prepare=False) as cursor:
        if serial:
            cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _own_outside(own: Profile | None, filters: SearchFilters) -> bool:
    """Whether the viewer's own profile cannot match the filters on its gender or country
    (a man looking for women): then a member without blocks sees what every visitor sees
    and the count needs no query of its own."""
    if own is None:
        return True
    if set(filters.genders) != set(Gender.values) and own.gender not in filters.genders:
        return True
    return own.country != filters.country if filters.country else own.country not in filters.countries


def _count_cache_key(filters: SearchFilters) -> str:
    return f"search-count:{filters.key()}"


def _count(filters: SearchFilters, hidden: Hidden | None, cached: dict | None = None) -> int:
    """Matches for this viewer: exact below COUNT_CAP + PAGE_SIZE, at least that many
    from there on. The count for every visitor (up to COUNT_LIMIT) is cached per site and
    filters for COUNT_TTL seconds; what this viewer may not see among its matches is
    counted with a query on the primary and user keys and subtracted. Only when that
    leaves too few for "at least" (the visitors' count at the limit, and more hidden than
    HIDDEN_SLACK) are this viewer's own matches counted up to the limit. `cached`: entries
    already read from the cache with others (the count's is used when there)."""
    key = _count_cache_key(filters)
    if cached and key in cached:
        total = cached[key]
    else:
        total = volatile_get_or_set(key, lambda: _scalar(*_count_sql(filters), serial=True), COUNT_TTL)
    if hidden is not None:
        hidden_matches = _scalar(*_count_sql(filters, hidden.users, hidden.profiles))
        if total >= COUNT_LIMIT and total - hidden_matches < COUNT_CAP + PAGE_SIZE:
            return _scalar(*_limited_count(*_matches_sql(filters, hidden=hidden)), serial=True)
        total -= hidden_matches
    return max(total, 0)


def _cursor_cache_key(filters: SearchFilters, viewer, page: int) -> str:
    who = viewer.pk if getattr(viewer, "is_authenticated", False) else "visitor"
    return f"search-cursor:{filters.key()}:{who}:{page}"


def _similar_steps(*, site: Site, filters: SearchFilters) -> list[SearchFilters]:
    """Ever wider filters: without the region, then 5 years wider each way, then any of the
    site's countries. Steps that change nothing are left out."""
    steps: list[SearchFilters] = []
    current = filters
    if current.region:
        current = replace(current, region="")
        steps.append(current)
    wider = replace(
        current,
        min_age=max(site.min_age, current.min_age - SIMILAR_AGE_WIDENING),
        max_age=min(MAX_AGE, current.max_age + SIMILAR_AGE_WIDENING),
    )
    if wider != current:
        current = wider
        steps.append(current)
    if current.country and len(current.countries) > 1:
        current = replace(current, country="")
        steps.append(current)
    return steps


def search_run(*, site: Site, viewer, search: SearchRequest) -> SearchResult:
    """One page of results, newest first (-created, -id). With a cursor the page starts
    right after it (keyset: as fast at page 1,000 as at page 1), and `page` only labels
    the answer; `page` alone uses the cursor of that page if the server cached it for
    this viewer while serving the page before (by `page`), else an offset.
    On a first page shorter than PAGE_SIZE, similar results follow with their own count.
    Queries: the member's own profile with the block list (unless the parameters' parsing
    read them), the page, the count (two on a cache miss), plus the similar results' when
    shown; never one per profile."""
    filters = search.filters
    hidden = search.hidden if search.hidden is not None else _viewer_hidden(viewer)
    cursor = search.cursor
    cached = None
    if cursor is None and search.page > 1:
        # The cursor the server kept and the count, in one round trip.
        cursor_key = _cursor_cache_key(filters, viewer, search.page)
        cached = volatile_get_many([cursor_key, _count_cache_key(filters)])
        if cached and cached.get(cursor_key):
            cursor = _decode_cursor(cached[cursor_key])
    if cursor is not None:
        rows = _listed(*page_sql(filters, hidden=hidden, cursor=cursor, limit=PAGE_SIZE + 1))
    else:
        rows = _listed(*page_sql(filters, hidden=hidden, offset=(search.page - 1) * PAGE_SIZE, limit=PAGE_SIZE + 1))
    has_more = len(rows) > PAGE_SIZE
    results = rows[:PAGE_SIZE]
    next_cursor = _encode_cursor(results[-1].created, results[-1].pk) if has_more else None
    if next_cursor and search.cursor is None:
        # Only pages the server placed itself: a client's cursor may not match its page.
        volatile_set(_cursor_cache_key(filters, viewer, search.page + 1), next_cursor, CURSOR_TTL)
    own = own_profile(viewer)
    blocks = hidden is not None and hidden.blocks

    def count(counted: SearchFilters) -> int:
        # Without blocks, only the viewer's own profile can differ from a visitor's count.
        return _count(counted, hidden if blocks or not _own_outside(own, counted) else None, cached)

    num_results = count(filters)

    similar: list[Profile] = []
    num_similar = 0
    if search.page == 1 and search.cursor is None and len(results) < PAGE_SIZE:
        steps = _similar_steps(site=site, filters=filters)
        for index, relaxed in enumerate(steps):
            similar = _listed(*page_sql(relaxed, hidden=hidden, leave_out=filters))
            if len(results) + len(similar) >= PAGE_SIZE or index == len(steps) - 1:
                # The relaxed filters hold every exact match: their count minus the exact one.
                num_similar = max(count(relaxed) - num_results, len(similar)) if similar else 0
                break

    return SearchResult(
        results=results,
        page=search.page,
        num_results=num_results,
        has_more=has_more,
        next_cursor=next_cursor,
        similar=similar,
        num_similar=num_similar,
        filters=filters.payload(niche_genders=search.niche_genders),
    )


def search_page(*, site: Site, viewer, search: SearchRequest) -> dict:
    """The JSON of one page of results (GET /api/search.php, the search page's first
    render). A visitor's page is shared by every visitor who asks for the same page with
    the same filters in the same language, and kept VISITOR_PAGE_TTL seconds: paid
    traffic from the landers mostly asks for the same first pages. A member's page is
    always made afresh (blocks, their own profile)."""
    if getattr(viewer, "is_authenticated", False):
        return search_payload(search_run(site=site, viewer=viewer, search=search), site=site)
    raw = json.dumps([
        get_language(), search.filters.key(), search.page, search.cursor and _encode_cursor(*search.cursor),
        search.niche_genders, timezone.localdate().isoformat(),
    ])  # fmt: skip
    key = "search-page:" + hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()
    payload = volatile_get(key)
    if payload is None:
        payload = search_payload(search_run(site=site, viewer=viewer, search=search), site=site)
        volatile_set(key, payload, VISITOR_PAGE_TTL)
    return payload


# --- Output -----------------------------------------------------------------------


def search_payload(result: SearchResult, *, site: Site | None = None) -> dict:
    """The JSON of GET /api/search.php; `site` (the connection's when not given) shows
    the cards as that site does."""
    today = timezone.localdate()
    return {
        "results": profile_cards(result.results, today=today, site=site),
        "page": result.page,
        "num_results": min(result.num_results, COUNT_CAP),
        "num_results_capped": result.num_results_capped,
        "has_more": result.has_more,
        "next": result.next_cursor,
        "similar": profile_cards(result.similar, today=today, site=site),
        "num_similar": min(result.num_similar, COUNT_CAP),
        "num_similar_capped": result.num_similar_capped,
        "num_results_text": _count_text(result.num_results, similar=False),
        "num_similar_text": _count_text(result.num_similar, similar=True),
        "filters": result.filters,
    }


def _count_text(count: int, *, similar: bool) -> str:
    """ "24 members found", or past COUNT_CAP "1,000+ members found" (the number grouped as
    the language writes it)."""
    if count > COUNT_CAP:
        shown = number_format(COUNT_CAP, force_grouping=True)
        if similar:
            return ngettext("%(count)s+ similar member", "%(count)s+ similar members", COUNT_CAP) % {"count": shown}
        return ngettext("%(count)s+ member found", "%(count)s+ members found", COUNT_CAP) % {"count": shown}
    shown = number_format(count, force_grouping=True)
    if similar:
        return ngettext("%(count)s similar member", "%(count)s similar members", count) % {"count": shown}
    return ngettext("%(count)s member found", "%(count)s members found", count) % {"count": shown}
