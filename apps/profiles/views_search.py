"""The search page (/members) and the match finder (/match-finder), issue 4 items 4-5.
Both are islands fed by GET /api/search.php; the first page is rendered on the server
too (in the props and in a <noscript> list)."""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django_countries import countries

# Up to accounts: the members-only guard of the pages (visitors go to the login page).
from apps.accounts.views_signup import member_required
from apps.common.exceptions import ApplicationError
from apps.common.islands import match_finder_strings, search_strings
from apps.profiles.models import Gender
from apps.profiles.search import (
    ALL_GENDERS,
    CHOICE_FIELDS,
    FIELD_LABELS,
    MAX_AGE,
    PAGE_SIZE,
    VERIFIED_PARAM,
    niche_genders,
    own_profile,
    search_allowed,
    search_defaults,
    search_page,
    search_params_parse,
)
from apps.tenants.constants import interest_label
from apps.tenants.models import Site
from apps.tenants.selectors import region_data

# Query parameters of the page that are filters (page and cursor are the island's).
FILTER_PARAMS = ("gender", "country", "region", "min_age", "max_age", *FIELD_LABELS)


def search_options(site: Site) -> dict:
    """What the filter controls offer on this site."""
    genders = niche_genders(site)
    gender_options = [{"value": value, "label": str(label)} for value, label in Gender.choices if value in genders]
    if len(genders) > 1:
        gender_options.insert(0, {"value": ALL_GENDERS, "label": _("Everyone")})
    fields = []
    for name in site.search_fields:
        if name == "interests":
            options = [{"value": item, "label": interest_label(item)} for item in site.interests]
        elif name in CHOICE_FIELDS:
            options = [{"value": value, "label": str(label)} for value, label in CHOICE_FIELDS[name].choices]
        else:
            continue
        fields.append({"name": name, "label": str(FIELD_LABELS[name]).capitalize(), "options": options})
    # Verified members only: one more choice, shown like the site's search fields.
    fields.append(
        {"name": VERIFIED_PARAM, "label": _("Photos"), "options": [{"value": "1", "label": _("Verified only")}]}
    )
    return {
        "genders": gender_options,
        "countries": [{"code": code, "name": str(countries.name(code))} for code in site.country_codes],
        "regions": region_data(site),
        "minAge": site.min_age,
        "maxAge": MAX_AGE,
        "fields": fields,
    }


def _common_props(request: HttpRequest) -> dict:
    site = request.site
    defaults = search_defaults(site=site, profile=own_profile(request.user))
    return {
        "apiUrl": reverse("api-search"),
        "profileUrl": "/members/{id}",
        "likesUrl": reverse("api-likes"),
        "loginUrl": reverse("login"),
        "pageSize": PAGE_SIZE,
        "options": search_options(site),
        "defaults": defaults.payload(niche_genders=niche_genders(site)),
    }


def members_page(request: HttpRequest) -> HttpResponse:
    """Search members: the filters from the query (so a reload keeps them), the first
    page of results. Visitors the site does not let search get a login prompt."""
    site = request.site
    if not search_allowed(request):
        query = urlencode({"next": request.get_full_path()})
        return render(
            request,
            "profiles/search.html",
            {"allowed": False, "login_url": f"{reverse('login')}?{query}", "signup_url": reverse("signup")},
        )
    params = {name: request.GET.getlist(name) for name in FILTER_PARAMS if name in request.GET}
    error = ""
    try:
        search = search_params_parse(site=site, viewer=request.user, params=params)
    except ApplicationError as exc:
        error = str(exc.message)
        search = search_params_parse(site=site, viewer=request.user, params={})
    initial = search_page(site=site, viewer=request.user, search=search)
    props = {
        **_common_props(request),
        "filters": initial["filters"],
        "initial": initial,
        "error": error,
        "strings": search_strings(),
    }
    return render(request, "profiles/search.html", {"allowed": True, "search_props": props, "initial": initial})


@member_required
def match_finder_page(request: HttpRequest) -> HttpResponse:
    """A guided search by the member's preferences, prefilled from the profile."""
    props = {**_common_props(request), "strings": match_finder_strings()}
    props["filters"] = props["defaults"]
    return render(request, "profiles/match_finder.html", {"match_finder_props": props})
