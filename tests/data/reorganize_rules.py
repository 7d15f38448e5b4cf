"""Knowledge files of distinct rules for the reorganize tests (issue 32's examples).

Every rule differs from every other in a region, a table or a metric: a
reorganize that merges any two of them loses a rule.
"""

from __future__ import annotations

REGIONS = ["North", "South", "East", "West", "Central", "Coastal", "Mountain", "Island"]
TABLES = ["orders_daily", "customers", "refunds_log", "inventory", "web_sessions", "payments"]
TABLES += ["shipments", "returns_ledger"]
METRICS = ["GMV", "DAU", "churn", "conversion", "AOV", "retention", "NPS", "ARPU"]
INFO_FACTS = [
    "收入口径不含退款和税费",
    "华北区包含北京、天津和河北",
    "Fiscal year starts on February 1",
    "Test accounts have ids below 1000",
    "Refunds older than 90 days are booked as write-offs",
    "西南区的订单按到货日期计入",
    "AOV is GMV divided by paid orders",
    "The data warehouse runs in UTC",
]


def region_table_chart_rules(filler: bool = False) -> list[str]:
    """32 distinct rules: revenue per region, refresh times per table, chart conventions per metric.

    With ``filler`` every fourth rule opens with filler a reorganize may condense
    ("Note that …", "FYI: …").
    """
    rules = [
        f"{r} region revenue must exclude test accounts, staff orders and internal transfers"
        for r in REGIONS
    ]
    rules += [
        f"The {t} table refreshes at {5 + i}:30 UTC; query it only after that time"
        for i, t in enumerate(TABLES)
    ]
    rules += [
        f"Charts of {m} use a zero-based y axis, weekly buckets and the house palette"
        for m in METRICS
    ]
    rules += [f"Report {m} by region, never as one national figure" for m in METRICS]
    if filler:
        rules = [
            f"Note that {r[0].lower()}{r[1:]}" if i % 4 == 0 else r for i, r in enumerate(rules)
        ]
    return rules


def knowledge_text(rules: list[str], info: list[str] = INFO_FACTS) -> str:
    body = "".join(f"- {r}\n" for r in rules)
    facts = "".join(f"- {f}\n" for f in info)
    return f"## Rules\n\n{body}\n## Info\n\n{facts}"
