"""Islands: the esbuild manifest, and the translated strings each island receives."""

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext as _

from apps.common.i18n import per_language

_manifest_lock = threading.Lock()
_manifest: dict = {"mtime": None, "data": None}


class ManifestMissing(RuntimeError):
    pass


def manifest() -> dict:
    """esbuild's manifest, re-read when the file changes (the watcher rewrites it)."""
    path = settings.ISLANDS_MANIFEST
    try:
        mtime = os.stat(path).st_mtime  # on every cached page's lookup: no Path made
    except FileNotFoundError as exc:
        raise ManifestMissing(f"{path} is missing: run `npm run build` (make run does it).") from exc
    if _manifest["mtime"] != mtime:
        path = Path(path)
        with _manifest_lock:
            _manifest["data"] = json.loads(path.read_text())
            _manifest["mtime"] = mtime
    return _manifest["data"]


def assets_version() -> str:
    """Changes whenever the assets are built again (the manifest's time): part of the key
    of a cached page, which names the built files (apps.common.page_cache)."""
    manifest()  # re-reads a rebuilt manifest
    return str(_manifest["mtime"])


def location_strings() -> dict:
    """The "Use my location" button of the signup's location step and of the search filters."""
    return {
        "useLocation": _("Use my location"),
        "locating": _("Finding your location…"),
        "locationFound": _("Your location has been filled in."),
        "locationFailed": _("Your location could not be found. Please choose it yourself."),
        "locationDenied": _("Your browser does not share your location. Please choose it yourself."),
    }


def signup_strings(min_age: int = 18) -> dict:
    """The signup island (steps 0-4, push, confirm). `{name}`, `{email}`, `{step}`,
    `{total}`, `{count}` and `{max}` are filled in by the island."""
    return {
        "title": _("Sign up for free"),
        "close": _("Close"),
        "stepOf": _("Step {step} of {total}"),
        "back": _("Back"),
        "next": _("Next"),
        "skip": _("Skip"),
        "save": _("Save and continue"),
        "saving": _("Please wait…"),
        "error": _("An error has occurred."),
        "signupsClosed": _("Signing up is not possible right now."),
        # Step 0: message or account.
        "messageTitle": _("Write a message to {name}"),
        "messageLabel": _("Your message to {name}"),
        "messageHelp": _("{name} receives your message as soon as you have confirmed your e-mail address."),
        "accountTitle": _("Create your free account"),
        "email": _("E-mail address"),
        "name": _("Name"),
        "nameHelp": _("Other members see this name."),
        "dateOfBirth": _("Date of birth"),
        "dateOfBirthHelp": _("Enter your date of birth (%(min_age)s+)") % {"min_age": min_age},
        "day": _("Day"),
        "month": _("Month"),
        "year": _("Year"),
        "password": _("Password"),
        "passwordHelp": _("At least 8 characters."),
        "showPassword": _("Show password"),
        "submit": _("Create my account"),
        "terms": _("By signing up you accept our terms and conditions and our privacy statement."),
        "termsLink": _("Terms and conditions"),
        "privacyLink": _("Privacy statement"),
        "invalidDate": _("Invalid date of birth."),
        "popupTitle": _("Please check"),
        "ok": _("OK"),
        # An account exists already.
        "loginTitle": _("Log in to your account"),
        "loginLink": _("Go to the login page"),
        "loginSubmit": _("Login"),
        "loginEmail": _("E-mail address"),
        "loginPassword": _("Password"),
        "accountDeletedHelp": _("Did not get the e-mail, or has the link expired? Our customer service can help."),
        "serviceLink": _("Contact customer service"),
        # Step 1: photo.
        "photoTitle": _("Add a profile photo"),
        "photoIntro": _("Members with a photo get many more replies."),
        "photoLabel": _("Choose a photo"),
        "photoHelp": _("JPEG, PNG or WebP."),
        "photoUploading": _("Uploading your photo…"),
        "photoAlt": _("Your photo"),
        "photoPending": _("Your photo will be visible to others once it has been approved."),
        "photoAnother": _("Add another photo"),
        # Step 2: location.
        "locationTitle": _("Where do you live?"),
        "country": _("Country"),
        "region": _("Region"),
        "regionChoose": _("Choose a region"),
        "city": _("City"),
        **location_strings(),
        # Step 3: personal info.
        "personalTitle": _("Tell us about yourself"),
        "gender": _("I am a"),
        "sexuality": _("My sexuality"),
        # Step 4: about me.
        "aboutTitle": _("About me"),
        "aboutLabel": _("Describe yourself and what you are looking for"),
        "aboutCount": _("{count} of {max} characters"),
        # Push step.
        "pushTitle": _("Never miss a message"),
        "pushBody": _("Get a notification when someone sends you a message or likes you."),
        "pushEnable": _("Enable notifications"),
        "pushDenied": _("Notifications are blocked in your browser. You can allow them in its settings."),
        "pushFailed": _("Notifications could not be enabled."),
        # Final step.
        "confirmTitle": _("Confirm your e-mail address"),
        "confirmBody": _("We have sent a link to {email}. Open it to confirm your e-mail address."),
        "confirmMessages": _("You will receive messages as soon as your e-mail address is confirmed."),
        "confirmSpam": _("No e-mail? Check your spam folder."),
        "resend": _("Send the e-mail again"),
        "resent": _("We have sent the e-mail again."),
        "continue": _("Continue"),
    }


def search_strings() -> dict:
    """The search island (/members). Counts come translated with the results
    (`num_results_text`, `num_similar_text`: plural forms need the server's gettext)."""
    return {
        "title": _("Search members"),
        "filters": _("Filters"),
        "gender": _("Looking for"),
        "country": _("Country"),
        "region": _("Region"),
        "anyRegion": _("All regions"),
        **location_strings(),
        "minAge": _("From age"),
        "maxAge": _("To age"),
        "any": _("Any"),
        "search": _("Search"),
        "like": _("Like"),
        "liked": _("Liked"),
        "unlike": _("Unlike"),
        "match": _("It's a match!"),
        "likeLogin": _("Log in or sign up to like this profile."),
        "clear": _("Clear"),
        "loadMore": _("Load more"),
        "loading": _("Loading…"),
        "noResults": _("No members match your search."),
        "noResultsHelp": _("Try a wider age range, another region or fewer filters."),
        "cleared": _("Choose what you are looking for and press Search."),
        "similarTitle": _("Similar members"),
        "noPhoto": _("No photo"),
        "fictional": _("Fictional profile"),
        "error": _("An error has occurred."),
    }


def match_finder_strings() -> dict:
    """The match finder island (/match-finder): steps, then the search results."""
    return {
        **search_strings(),
        "title": _("Match finder"),
        "intro": _("Answer a few questions and we show you the members who suit you best."),
        "stepOf": _("Step {step} of {total}"),
        "genderTitle": _("Who are you looking for?"),
        "ageTitle": _("How old should they be?"),
        "locationTitle": _("Where should they live?"),
        "moreTitle": _("A little more about them"),
        "back": _("Back"),
        "next": _("Next"),
        "showMatches": _("Show my matches"),
        "resultsTitle": _("Your matches"),
        "restart": _("Start again"),
    }


def match_modal_strings() -> dict:
    """The match modal (spec §2): a received like, shown once after page load."""
    return {
        "title": _("New like!"),
        "viewProfile": _("View profile"),
        "close": _("Close"),
    }


def like_modal_strings() -> dict:
    """The like modal (spec §2, §4): shown t seconds after arriving with ?t=."""
    return {
        "title": _("Who do you like?"),
        "body": _("Like the members you find attractive: when they like you too, it is a match."),
        "swipe": _("Play the swipe game"),
        "members": _("Search members"),
        "close": _("Close"),
    }


# Every string an island shows, translated on the server (islands never hard-code text).
ISLAND_STRINGS: dict[str, Callable[[], dict]] = {
    "Signup": signup_strings,
    "Search": search_strings,
    "MatchFinder": match_finder_strings,
    "MatchModal": match_modal_strings,
    "LikeModal": like_modal_strings,
}


def island_strings_register(name: str, builder: Callable[[], dict]) -> None:
    """Let an app give its island's strings from its own module (call from AppConfig.ready)."""
    ISLAND_STRINGS[name] = builder
    _strings_made.cache_clear()


# An island's strings by island and language, made once per process: the builders are
# tables of gettext calls, and making the signup island's alone took about 60 lookups on
# every visitor's page.
@per_language
def _strings_made(name: str) -> dict:
    return ISLAND_STRINGS[name]()


def island_strings(name: str) -> dict:
    """The island's strings in the active language (a copy: the caller may add to it)."""
    if name not in ISLAND_STRINGS:
        return {}
    return dict(_strings_made(name))
