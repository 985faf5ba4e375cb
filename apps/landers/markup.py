"""A small, safe text format for operators' site pages: everything is escaped first,
then a few marks become markup. Blank lines separate paragraphs; a line starting with
"# " or "## " is a heading, "- " a list item; **bold**, *italic* and [text](url) with
an http(s) address or a path on the site. Nothing else: no HTML passes through."""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])")
# Applied to escaped text: the address may not hold quotes, spaces or angle brackets.
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?://|/)[^\s()\"'<>]*)\)")


def _inline(text: str) -> str:
    """Escape `text`, then turn its marks into markup."""
    html = escape(text)

    def link(match: re.Match) -> str:
        label, url = match.group(1), match.group(2)
        if url.startswith("//"):  # another host without a scheme
            return match.group(0)
        external = not url.startswith("/")
        rel = ' rel="noopener nofollow" target="_blank"' if external else ""
        # label and url are already escaped (escape() ran on the whole text).
        return f'<a href="{url}"{rel}>{label}</a>'

    html = _LINK.sub(link, html)
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    return _ITALIC.sub(r"<em>\1</em>", html)


def _block_html(lines: list[str]) -> list[str]:
    """One block of lines (no blank line inside) as HTML pieces."""
    pieces: list[str] = []
    items: list[str] = []
    paragraph: list[str] = []
    for line in [*lines, ""]:  # the empty line at the end flushes what is open
        stripped = line.strip()
        is_heading = stripped.startswith(("# ", "## "))
        is_item = stripped.startswith("- ")
        if paragraph and (is_heading or is_item or not stripped):
            pieces.append("<p>" + "<br>".join(_inline(text) for text in paragraph) + "</p>")
            paragraph = []
        if items and not is_item:
            pieces.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
            items = []
        if is_heading:
            level = "h3" if stripped.startswith("## ") else "h2"
            pieces.append(f"<{level}>{_inline(stripped.split(' ', 1)[1].strip())}</{level}>")
        elif is_item:
            items.append(_inline(stripped[2:].strip()))
        elif stripped:
            paragraph.append(stripped)
    return pieces


def render_page_body(text: str) -> SafeString:
    """The page's text as HTML (see the module's docstring)."""
    blocks: list[str] = []
    for block in re.split(r"\n\s*\n", (text or "").replace("\r\n", "\n").strip()):
        lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        blocks.extend(_block_html(lines))
    return mark_safe("\n".join(blocks))  # noqa: S308 - every piece of text went through escape()


def page_summary(text: str, length: int = 160) -> str:
    """Plain text for the meta description."""
    plain = re.sub(r"[#*\[\]]|\(https?://[^)]*\)|\(/[^)]*\)", "", text or "")
    plain = " ".join(plain.split())
    return plain if len(plain) <= length else plain[: length - 1].rstrip() + "…"
