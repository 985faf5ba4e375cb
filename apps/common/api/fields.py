"""Serializer fields the API's inputs share."""

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false, nothing else: DRF's own also takes 1, "yes" or "on", which the
    schema's `boolean` does not allow, so a client that sent them would only work by luck."""

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        self.fail("invalid", input=data)


class StrictCharField(serializers.CharField):
    """Text only: DRF's own turns a number into its digits, which the schema's `string`
    does not allow."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictRegexField(serializers.RegexField):
    """A RegexField that takes text only (a number would pass as its digits)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
