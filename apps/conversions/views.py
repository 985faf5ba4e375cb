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
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apps.common.exceptions import error_body
from apps.common.spreadsheet import Echo, csv_cell
from apps.conversions.selectors import GROUPS_SHOWN, report

PERMISSION = "conversions.view_reports"
MAX_DAYS = 3 * 366
DEFAULT_DAYS = 30
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 200, 4


class ReportForm(forms.Form):
    site = forms.TypedChoiceField(label=_("site"), required=False, coerce=int, empty_value=None)
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from apps.tenants.models import Site

        sites = Site.objects.exclude(schema_name="public").order_by("name").values_list("pk", "name")
        self.fields["site"].choices = [("", gettext("All sites")), *sites]

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
    return {"bars": bars, "width": CHART_WIDTH, "height": CHART_HEIGHT, "top": top}


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
    form = ReportForm(request.GET)
    wants_csv = request.GET.get("export") == "csv"
    if not form.is_valid():
        if wants_csv:
            message = " ".join(str(error) for errors in form.errors.values() for error in errors)
            return JsonResponse(error_body("invalid", message, fields=form.errors), status=400)
        return _page(request, form, None, status=400)
    data_in = form.cleaned_data
    if not (form.data.get("start") and form.data.get("end")):
        # The form shows the days the numbers are of, also when they were left empty.
        shown = form.data.copy()
        shown["start"], shown["end"] = data_in["start"].isoformat(), data_in["end"].isoformat()
        form = ReportForm(shown)
        form.is_valid()
    data = report(
        first=data_in["start"],
        last=data_in["end"],
        site_id=data_in.get("site"),
        period=data_in["period"],
        by=data_in["by"],
        network=data_in.get("net", ""),
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
        labels = [line.label for line in series]
        query = request.GET.copy()
        query["export"] = "csv"
        context.update(
            currencies=currencies,
            main_currency=main,
            total=_line_cells(data["total"], currencies),
            groups=[_line_cells(line, currencies) for line in data["groups"][:GROUPS_SHOWN]],
            groups_cut=max(len(data["groups"]) - GROUPS_SHOWN, 0),
            series=[_line_cells(line, currencies) for line in series],
            charts=[
                (_bars([line.counts["signups"] for line in series], labels), gettext("Signups"), "signups"),
                (
                    _bars([line.money["revenue"].get(main, 0) // 100 for line in series], labels),
                    gettext("Revenue") + (f" ({main})" if main else ""),
                    "revenue",
                ),
            ],
            csv_query=query.urlencode(),
            filters=filters,
            by_label=dict(form.fields["by"].choices).get(filters["by"], filters["by"]),
        )
    return TemplateResponse(request, "admin/conversions/reports.html", context, status=status)
