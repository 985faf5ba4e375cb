"""The revenue dashboard on the operators' host: /admin/reports/ (operators only).

Filters live in the address (a GET form), so a view can be bookmarked and shared; a bad
value answers 400 with the form's message, never 500. `?export=csv` gives the same
numbers as CSV (a bad filter there answers 400 in the JSON error shape). The charts are
SVG drawn here (no script, no inline style: the admin's CSP), each beside a table of its
numbers."""

from __future__ import annotations

import csv
from datetime import timedelta

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.forms.utils import flatatt
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.common.exceptions import error_body
from apps.common.spreadsheet import Echo, csv_cell
from apps.conversions.selectors import GROUPS_SHOWN, others, report

PERMISSION = "conversions.view_reports"
MAX_DAYS = 3 * 366
DEFAULT_DAYS = 30
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 200, 4


class QuickSelect(forms.Select):
    """A <select> written in one pass: a thousand sites' options through the widget
    templates, one template each, took longer than the dashboard's query."""

    def render(self, name, value, attrs=None, renderer=None):
        final = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        chosen = set(self.format_value(value))
        options = "".join(
            f'<option value="{escape(key)}"{" selected" if str(key) in chosen else ""}>{escape(label)}</option>'
            for key, label in self.choices
        )
        return format_html("<select{}>{}</select>", flatatt(final), mark_safe(options))  # noqa: S308 - escaped


def site_choices() -> list[tuple[int, str]]:
    from apps.tenants.models import Site

    return list(Site.objects.exclude(schema_name="public").order_by("name").values_list("pk", "name"))


class ReportForm(forms.Form):
    site = forms.TypedChoiceField(label=_("site"), required=False, coerce=int, empty_value=None, widget=QuickSelect)
    start = forms.DateField(label=_("from"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=_("to"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    period = forms.ChoiceField(
        label=_("per"), required=False, choices=[("day", _("day")), ("week", _("week")), ("month", _("month"))]
    )
    by = forms.ChoiceField(
        label=_("breakdown by"),
        required=False,
        choices=[
            ("site", _("site")),
            ("network", _("network")),
            ("ref", "ref"),
            ("sub1", "sub1"),
            ("lander", _("lander")),
            ("campaign", _("campaign")),
        ],
    )
    # Not "network": on any host the tracking middleware takes that (and ref, sub1...)
    # out of the address as a partner's parameter.
    net = forms.CharField(label=_("network"), required=False, max_length=100)

    def __init__(self, *args, sites: list[tuple[int, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.sites = site_choices() if sites is None else sites
        self.fields["site"].choices = [("", gettext("All sites")), *self.sites]

    def clean_net(self) -> str:
        return self.cleaned_data["net"].strip().lower()

    def clean(self):
        data = super().clean()
        today = timezone.localdate()
        end = data.get("end") or today
        start = data.get("start") or end - timedelta(days=DEFAULT_DAYS - 1)
        if "start" in data and "end" in data:
            if start > end:
                raise forms.ValidationError(gettext("The start date must not be after the end date."))
            if (end - start).days >= MAX_DAYS:
                raise forms.ValidationError(gettext("Choose at most three years."))
        data["start"], data["end"] = start, end
        data["period"] = data.get("period") or "day"
        data["by"] = data.get("by") or "network"
        return data


def _money(minor: int | None) -> str:
    return "" if minor is None else f"{minor / 100:.2f}"


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value * 100:.1f} %"


def _line_cells(line, currencies: list[str]) -> dict:
    revenue = [_money(line.money["revenue"].get(c, 0)) for c in currencies]
    net = [_money(line.net(c)) for c in currencies]
    per_signup = [_money(line.revenue_per_signup(c)) for c in currencies]
    return {
        "money_pairs": list(zip(revenue, per_signup, strict=True)),
        "money_triples": list(zip(revenue, net, per_signup, strict=True)),
        "label": line.label or gettext("(none)"),
        "counts": line.counts,
        "revenue": revenue,
        "net": net,
        "per_signup": per_signup,
        "visit_rate": _percent(line.rate("signups", "visits")),
        "confirm_rate": _percent(line.rate("confirmations", "signups")),
        "buy_rate": _percent(line.rate("first_purchases", "signups")),
    }


_COUNT_CELLS = ("visits", "signups", "confirmations", "first_purchases", "purchases")


def _table_rows(lines: list[dict], *, kind: str, css: str = "") -> str:
    """The <tr>s of the series ("series") or breakdown ("groups") table in one pass: a
    year per day is 365 rows of a dozen cells, too many for a template's variables. The
    cells are numbers and rates this module formats; only the label is escaped."""
    row_class = f' class="{css}" data-testid="{css}"' if css else ""
    rows = []
    for cells in lines:
        values = [cells["counts"][name] for name in _COUNT_CELLS]
        if kind == "series":
            values += [*cells["revenue"], cells["counts"]["refunds"], cells["counts"]["chargebacks"]]
        else:
            values += [value for pair in cells["money_pairs"] for value in pair]
            values += [cells["counts"]["refunds"], cells["counts"]["chargebacks"]]
            values += [cells["visit_rate"], cells["buy_rate"]]
        tds = "".join(f'<td class="num">{value}</td>' for value in values)
        rows.append(f'<tr{row_class}><th scope="row">{escape(cells["label"])}</th>{tds}</tr>')
    return mark_safe("\n".join(rows))  # noqa: S308 - numbers, and the label escaped


def _bars(values: list[int], labels: list[str]) -> dict:
    """Bars of a chart: geometry in the SVG's own units, drawn by the template."""
    top = max(values, default=0) or 1
    count = max(len(values), 1)
    step = CHART_WIDTH / count
    width = max(step - 2, 1)
    bars = []
    for index, (value, label) in enumerate(zip(values, labels, strict=True)):
        height = round((CHART_HEIGHT - CHART_PAD) * value / top, 1)
        bars.append(
            {
                "x": round(index * step, 1),
                "y": round(CHART_HEIGHT - height, 1),
                "width": round(width, 1),
                "height": height,
                "label": label,
                "value": value,
            }
        )
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "top": max(values, default=0),
        "first": labels[0] if labels else "",
        "last": labels[-1] if labels else "",
    }


def _bars_svg(chart: dict, css: str) -> str:
    """The chart's <rect>s (numbers, and the period's label escaped)."""
    return mark_safe(  # noqa: S308 - numbers, and the label escaped
        "".join(
            f'<rect class="bar-{css}" x="{bar["x"]}" y="{bar["y"]}" width="{bar["width"]}" '
            f'height="{bar["height"]}"><title>{escape(bar["label"])}: {bar["value"]}</title></rect>'
            for bar in chart["bars"]
        )
    )


def _csv(data: dict, form_data: dict) -> StreamingHttpResponse:
    currencies = data["currencies"]
    header = [
        gettext("breakdown by") + ": " + form_data["by"],
        gettext("visits"),
        gettext("signups"),
        gettext("confirmations"),
        gettext("first purchases"),
        gettext("later purchases"),
        gettext("refunds"),
        gettext("chargebacks"),
        *(gettext("revenue") + f" {c}" for c in currencies),
        *(gettext("net revenue") + f" {c}" for c in currencies),
        *(gettext("revenue per signup") + f" {c}" for c in currencies),
    ]
    writer = csv.writer(Echo())

    def lines():
        yield writer.writerow(header)
        for line in [*data["groups"], data["total"]]:
            cells = _line_cells(line, currencies)
            row = [
                cells["label"] if line is not data["total"] else gettext("Total"),
                *(line.counts[name] for name in ("visits", "signups", "confirmations", "first_purchases")),
                *(line.counts[name] for name in ("purchases", "refunds", "chargebacks")),
                *cells["revenue"],
                *cells["net"],
                *cells["per_signup"],
            ]
            yield writer.writerow([csv_cell(value) for value in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    name = f"revenue-{form_data['start']:%Y%m%d}-{form_data['end']:%Y%m%d}-{form_data['by']}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def reports_view(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm(PERMISSION):
        raise PermissionDenied
    form = ReportForm(request.GET, sites=site_choices())
    wants_csv = request.GET.get("export") == "csv"
    if not form.is_valid():
        if wants_csv:
            message = " ".join(str(error) for errors in form.errors.values() for error in errors)
            return JsonResponse(error_body("invalid", message, fields=form.errors), status=400)
        return _page(request, form, None, status=400)
    data_in = form.cleaned_data
    if not all(form.data.get(name) for name in ("start", "end", "period", "by")):
        # The form shows the days, period and breakdown the numbers are of, also when
        # they were left empty (else a list would show its first choice, not the one used).
        shown = form.data.copy()
        shown["start"], shown["end"] = data_in["start"].isoformat(), data_in["end"].isoformat()
        shown["period"], shown["by"] = data_in["period"], data_in["by"]
        # The fields read their values from the data when drawn; validated once is enough.
        form.data = shown
    data = report(
        first=data_in["start"],
        last=data_in["end"],
        site_id=data_in.get("site"),
        period=data_in["period"],
        by=data_in["by"],
        network=data_in.get("net", ""),
        site_names=dict(form.sites),
    )
    if wants_csv:
        return _csv(data, data_in)
    return _page(request, form, data, filters=data_in)


def _page(request, form, data, *, filters=None, status=200) -> TemplateResponse:
    context = {**admin.site.each_context(request), "title": gettext("Revenue reports"), "form": form}
    if data is not None:
        currencies = data["currencies"]
        main = currencies[0] if currencies else ""
        series = data["series"]
        shown, rest = data["groups"][:GROUPS_SHOWN], data["groups"][GROUPS_SHOWN:]
        labels = [line.label for line in series]
        query = request.GET.copy()
        query["export"] = "csv"
        groups = [_line_cells(line, currencies) for line in shown]
        series_cells = [_line_cells(line, currencies) for line in series]
        charts = [
            (_bars([line.counts["signups"] for line in series], labels), gettext("Signups"), "signups"),
            (
                _bars([line.money["revenue"].get(main, 0) // 100 for line in series], labels),
                gettext("Revenue") + (f" ({main})" if main else ""),
                "revenue",
            ),
        ]
        for chart, _name, css in charts:
            chart["svg"] = _bars_svg(chart, css)
        others_row = ""
        if rest:
            label = gettext("All others (%(count)s)") % {"count": len(rest)}
            others_row = _table_rows(
                [_line_cells(others(rest, label), currencies)], kind="groups", css="reports-others"
            )
        context.update(
            currencies=currencies,
            main_currency=main,
            total=_line_cells(data["total"], currencies),
            groups=groups,
            groups_html=_table_rows(groups, kind="groups"),
            groups_cut=len(rest),
            others_html=others_row,
            series=series_cells,
            series_html=_table_rows(series_cells, kind="series"),
            charts=charts,
            csv_query=query.urlencode(),
            filters=filters,
            by_label=dict(form.fields["by"].choices).get(filters["by"], filters["by"]),
        )
    return TemplateResponse(request, "admin/conversions/reports.html", context, status=status)
