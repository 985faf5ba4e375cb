"""Reads about sites: the settings the islands receive, languages, countries, regions."""

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language
from django_countries import countries

from apps.common.i18n import INTERFACE_LANGUAGES
from apps.common.locale import request_country
from apps.tenants.constants import VISIBLE_LANGUAGES_BY_COUNTRY, Niche
from apps.tenants.models import Company, Site
from apps.tenants.regions import regions_for_country


def selected_country(site: Site, country: str | None) -> str:
    """The country a visitor is treated as being in: their own when the site serves it."""
    codes = site.country_codes
    if country and country in codes:
        return country
    return codes[0] if codes else "GB"


def visible_languages(site: Site, country: str | None) -> list[str]:
    """The site's languages a visitor from `country` is offered (spec §9), in the
    site's order. With no known country, or none in common, all the site's languages."""
    languages = [code for code in site.languages if code in INTERFACE_LANGUAGES]
    by_country = VISIBLE_LANGUAGES_BY_COUNTRY.get(country or "")
    if by_country:
        common = [code for code in languages if code in by_country]
        if common:
            return common
    return languages


_COUNTRY_NAMES: dict[tuple[str, str], str] = {}


def text_message_credits(site: Site, country: str) -> int:
    """Credits a text message costs a member of `country`: the site's `message_credits`, or
    the country's minimum when that is higher (spec §3 `minimum_message_costs`: a minimum
    never makes a message cheaper). The one rule the chat charges (apps.chat.pricing) and
    /pricing shows. `.all()` so the site middleware's prefetch is used."""
    if not country:
        return site.message_credits
    minimum = next((cost.costs for cost in site.minimum_message_costs.all() if cost.country.code == country), 0)
    return max(site.message_credits, minimum)


def country_name(code: str, language: str | None = None) -> str:
    """A country's name in the active language (`language`, when the caller has it at
    hand: a list of cards asks once): django-countries' translation, looked up once per
    language and country (a card list names the same few countries again and again, and
    each lookup through gettext costs more than the rest of the card)."""
    key = ((get_language() if language is None else language) or "", code)
    name = _COUNTRY_NAMES.get(key)
    if name is None:
        name = _COUNTRY_NAMES[key] = str(countries.name(code)) or code
    return name


def regions_offered(chosen, country: str) -> list[dict]:
    """The regions of `country` offered in profiles, signup and search: the `chosen` ones
    (a site's Site.regions) of that country, or all when none of them is. A member's region
    outside the choice stays valid; it is just not offered."""
    regions = regions_for_country(country)
    picked = {code for code in chosen or () if code.startswith(f"{country}-")}
    return [region for region in regions if region["code"] in picked] if picked else list(regions)


def site_regions(site: Site, country: str) -> list[dict]:
    return regions_offered(site.regions, country)


def region_data(site: Site) -> dict[str, list[dict]]:
    """Spec §3 `region_data`: per country of the site, the regions it offers."""
    return {code: site_regions(site, code) for code in site.country_codes}


def company_info(company: Company | None) -> dict | None:
    if company is None:
        return None
    return {
        "name": company.name,
        "address": company.address,
        "kvk": company.kvk,
        "city": company.city,
        "country": company.country.code,
        "tradenames": list(company.tradenames),
        "vat_numbers": list(company.vat_numbers),
        "support_phone": company.support_phone,
        "delete_discount": company.delete_discount,
        "added": company.added.isoformat(),
    }


def push_key_pair(site: Site | None) -> tuple[str, str]:
    """(public, private) VAPID keys of the site's pushes: its own pair when it has both
    halves, else the deployment's (settings VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY)."""
    if site is not None and site.push_public_key and site.push_private_key:
        return site.push_public_key, site.push_private_key
    return getattr(settings, "VAPID_PUBLIC_KEY", "") or "", getattr(settings, "VAPID_PRIVATE_KEY", "") or ""


def push_public_key(site: Site) -> str:
    """The VAPID public key browsers subscribe with (spec §3 settings "push public key");
    "" when there is none, and then no push is offered."""
    return push_key_pair(site)[0]


def site_settings(*, site: Site, request: HttpRequest, domain: str | None = None) -> dict:
    """Spec §3 "Settings (from the server)". `domain` is the host the caller forces
    (spec §7: the request host); it defaults to the host the site was found by."""
    country = request_country(request)
    return {
        "countries": site.country_codes,
        "name": site.name,
        "domain": domain or getattr(site, "domain_url", None) or "",
        "domain_language": site.domain_language or site.default_language,
        "languages": list(site.languages),
        "visible_languages": visible_languages(site, country),
        "index_title": site.index_title or site.name,
        "description": site.description,
        "cdn_prefix": site.cdn_prefix,
        "niche": site.niche,
        "niche_name": Niche(site.niche).label,
        "lander_prefix": site.lander_prefix,
        "signups": site.signups,
        "logged_out_search": site.logged_out_search,
        "logged_out_search_trafficsource": site.logged_out_search_trafficsource,
        "geoip_country": country,
        "geoip_selected_country": selected_country(site, country),
        "push_public_key": push_public_key(site),
        "minimum_message_costs": [
            {"country": cost.country.code, "costs": cost.costs, "currency": cost.currency}
            for cost in site.minimum_message_costs.all()
        ],
        "message_credits": site.message_credits,
        "photo_credits": site.photo_credits,
        "gift_credits": site.gift_credits,
        "signup_credits": site.signup_credits,
        "message_length": site.message_length,
        "min_age": site.min_age,
        "support_email": site.support_email,
        "support_phone": site.support_phone or (site.company.support_phone if site.company else ""),
        "fictional_icon": site.fictional_icon,
        "fictional_warning": site.fictional_warning,
        "fictional_singular": site.fictional_singular,
        "fictional_plural": site.fictional_plural,
        "enable_site_entry_popup": site.enable_site_entry_popup,
        "visible_profile_fields": list(site.visible_profile_fields),
        "visible_profile_notes": site.visible_profile_notes,
        "search_fields": list(site.search_fields),
        "refund_days": site.refund_days,
        "member_resell": site.member_resell,
        "company_id": site.company_id,
        "company": company_info(site.company),
        "mail_name": site.sender_name,
        "interests": list(site.interests),
        "region_data": region_data(site),
        "theme": {"primary": site.theme_primary, "secondary": site.theme_secondary},
    }
