"""The chat tests' committed rows come from tests/live.py (`committed` is a fixture of the
root conftest)."""

from tests.live import in_thread  # noqa: F401 - the chat tests import it from here
