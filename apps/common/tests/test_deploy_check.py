"""`manage.py check --deploy` with the production settings finds nothing (issue 13 item 6)."""

import subprocess
import sys
from pathlib import Path

from tests.production import production_environment

ROOT = Path(__file__).resolve().parents[3]


def test_check_deploy_with_production_settings_fails():
    # The browser tests' DJANGO_ALLOW_ASYNC_UNSAFE is theirs, not production's.
    env = production_environment()
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
