"""Signals of the payments app for the apps built on it."""

from django.dispatch import Signal

# The gateway's view of a payment moved it: `paid` (it just became paid), `refunded` and
# `charged_back` (minor units newly refunded or charged back, 0 for none). Sent with
# `payment` and `user` (None for an erased member) inside the transaction that applied
# it, under the payment's row lock, once per change: the conversion reports and the
# partners' postbacks count it (apps.conversions).
payment_changed = Signal()
