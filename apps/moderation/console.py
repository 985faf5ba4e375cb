"""The support console's actions on a member, as a complaint's page offers them: which
actions there are, doing one and resolving the complaint with it
(apps.support.services.complaint_act), and whether the member's data export was made
(erasing asks for it first).

They are support's, and support stands above the queues (its console hides a photo
through them), so support hands them over when it starts (SupportConfig.ready) and the
queues import nothing of support."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class ConsoleActions:
    member_actions: Collection[str]
    complaint_act: Callable[..., object]
    export_made: Callable[..., bool]


_handed: list[ConsoleActions] = []


def console_actions_register(actions: ConsoleActions) -> None:
    _handed[:] = [actions]


def console_actions() -> ConsoleActions:
    """The actions support handed over (a complaint's page without support offers none:
    this raises LookupError, a deployment mistake)."""
    if not _handed:
        raise LookupError("the support console's actions were not handed over (apps.support not installed?)")
    return _handed[0]
