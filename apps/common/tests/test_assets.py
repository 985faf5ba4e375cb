"""Rebuilding the assets (issue 13 item 10): the manifest is replaced, never removed, so a
request during `make run`'s rebuild never finds it missing (it answered 500)."""

import json
import subprocess
import time
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[3]


def test_manifest_json_is_missing_while_the_assets_rebuild():
    manifest = Path(settings.ISLANDS_MANIFEST)
    assert manifest.exists()
    build = subprocess.Popen(["npm", "run", "--silent", "build"], cwd=ROOT, stdout=subprocess.DEVNULL)
    seen, missing = 0, 0
    try:
        while build.poll() is None:
            seen += 1
            if not manifest.exists():
                missing += 1
            time.sleep(0.001)
    finally:
        build.wait(timeout=120)
    assert build.returncode == 0
    assert seen > 100  # the build took a while and was watched throughout
    assert missing == 0
    # Every file the new manifest names is there.
    data = json.loads(manifest.read_text())
    dist = manifest.parent
    assert (dist / data["css"]["main"]).exists()
    assert (dist / data["base"]["file"]).exists()
    for entry in data["islands"].values():
        assert (dist / entry["file"]).exists()


def test_the_chats_entries_import_no_chunk_of_their_own():
    """static_src/build.mjs OWN_COPIES: the Chat island is alone on its pages, so what its
    entries need on load is in their own file; the chunks they import are ones the base entry
    or another island imports too (React, the base's libs), not small files only the chat's
    pages load, but for one: the chat list's store code (lib/chats.ts), which the member code
    (base/member.ts, loaded with import(), so not in the manifest) shares."""
    data = json.loads(Path(settings.ISLANDS_MANIFEST).read_text())
    shared = set(data["base"]["imports"])
    for name, entry in data["islands"].items():
        if name.split(".")[0] != "Chat":
            shared.update(entry["imports"])
    for name in ("Chat", "Chat.list"):
        own = [chunk for chunk in data["islands"][name]["imports"] if chunk not in shared]
        assert len(own) <= 1, (name, own)
