"""Signals of the accounts app for the apps built on it."""

from django.dispatch import Signal

# Every session of a member on the current site was ended (deletion, "log out on all
# devices"); sent with user_id inside the transaction that ended them.
sessions_ended = Signal()
