"""CSV for staff's spreadsheets: a cell a spreadsheet would run as a formula (CSV
injection: member's or partner's text starting with = + - @) is written as text."""

import json


def csv_cell(value) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    # Spreadsheets run cells that start with these as formulas (CSV injection).
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


class Echo:
    """A file whose write returns the line, for csv.writer into a streamed response."""

    def write(self, value: str) -> str:
        return value
