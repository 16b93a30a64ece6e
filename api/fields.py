"""Serializer fields every API shares: strict JSON types (a number is not the string "42"), and
read-only text sent as null while it is empty."""

from __future__ import annotations

import datetime as dt

from rest_framework import serializers

#: The days the API reads: wide enough for any record, narrow enough that a day more or a
#: month less is still a date (0001-01-01 minus 30 days is not).
FIRST_DAY, LAST_DAY = dt.date(1970, 1, 1), dt.date(9998, 12, 31)


class StrictCharField(serializers.CharField):
    """A string, and only a string: 42 or true is a wrong type, not the text "42". Its length
    is checked as sent (as the schema's maxLength says), before surrounding spaces are
    trimmed."""

    default_error_messages = {"invalid": "Expected a string, got {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid", kind=type(data).__name__)
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class StrictSlugField(serializers.SlugField):
    default_error_messages = {"invalid_type": "Expected a string, got {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_type", kind=type(data).__name__)
        return super().to_internal_value(data)


class StrictURLField(serializers.URLField):
    default_error_messages = {"invalid_type": "Expected a string, got {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_type", kind=type(data).__name__)
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid_type": "Expected an integer, got {kind}."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid_type", kind=type(data).__name__)
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    default_error_messages = {"invalid_type": "Expected a number, got {kind}."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid_type", kind=type(data).__name__)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid_type": "Expected true or false, got {kind}."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid_type", kind=type(data).__name__)
        return data


class BlankAsNullCharField(serializers.CharField):
    """Read-only text that is empty until it is known: sent as null rather than ""."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value):
        return value or None


class FilterChoiceField(serializers.ChoiceField):
    """A query filter's choice, in any case (`refuse` is REFUSE); a value it does not know is
    answered with every valid one."""

    default_error_messages = {
        "invalid_choice": "'{input}' is not a valid choice. Valid choices: {valid}."
    }

    def to_internal_value(self, data):
        if data == "" and self.allow_blank:
            return ""
        text = str(data)
        for key in self.choice_strings_to_values:
            if key.casefold() == text.casefold():
                return self.choice_strings_to_values[key]
        self.fail("invalid_choice", input=text, valid=", ".join(self.choice_strings_to_values))


class DayField(serializers.DateField):
    """A day (YYYY-MM-DD) between `FIRST_DAY` and `LAST_DAY`."""

    default_error_messages = {
        "out_of_range": f"Give a day from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}."
    }

    def to_internal_value(self, value):
        day = super().to_internal_value(value)
        if not FIRST_DAY <= day <= LAST_DAY:
            self.fail("out_of_range")
        return day
