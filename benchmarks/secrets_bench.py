"""The secret detector's cost per captured cell (issue 29): what each recorded text pays.

Every cell a kernel captures and every chat text goes through ``redact`` once
before it is stored. Measured on realistic analysis cells (pandas, SQL, plots,
markdown, a traceback-ish print) and on cells that hold a secret, after the
first call (whose lazy regex compiles are reported apart), with the import of
the detector. Prints one JSON object; figures in µs.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

ROUNDS = 300

CELLS = [
    "import pandas as pd\nimport numpy as np\nimport matplotlib.pyplot as plt",
    'df = pd.read_csv("data/orders_2024.csv", parse_dates=["order_date"])\ndf.head()',
    'df["revenue"] = df["price"] * df["qty"] - df["refund"].fillna(0)\n'
    'monthly = df.groupby(df["order_date"].dt.to_period("M"))["revenue"].sum()\n'
    'monthly.plot(kind="bar", title="Monthly revenue (CNY)")\nplt.tight_layout()',
    "# Revenue excludes refunds; orders are deduplicated on order_id\n"
    'dedup = df.drop_duplicates(subset=["order_id"], keep="last")\n'
    'print(len(df), len(dedup), f"{1 - len(dedup) / len(df):.1%} duplicates")',
    'query = """\nSELECT customer_id, SUM(amount) AS total\nFROM sales.orders\n'
    "WHERE status = 'paid' AND order_date >= DATE '2024-01-01'\n"
    'GROUP BY customer_id\nORDER BY total DESC\nLIMIT 100\n"""\n'
    "top = pd.read_sql(query, engine)",
    "tokens = [t.lower() for t in text.split()]\ntoken_count = len(tokens)\n"
    "vocab = {key: i for i, key in enumerate(sorted(set(tokens)))}\n"
    "api = requests.get(url, params={'key': k}, timeout=10)",
    "from sklearn.model_selection import train_test_split\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42)\n"
    "model = GradientBoostingClassifier(n_estimators=200, max_depth=3).fit(X_train, y_train)\n"
    "print(classification_report(y_test, model.predict(X_test)))",
    "## 口径说明\n收入口径不含退款；订单按 order_id 去重。GMV 含运费，净收入不含。",
    "commit = '9fceb02d0ae598e95dc970b74767f19372d61af8'\n"
    "sha = hashlib.sha256(payload).hexdigest()\nsort_key = lambda row: row['revenue']",
    "for key, value in settings.items():\n    print(f'{key:>20}: {value}')",
]
SECRET_CELLS = [
    'engine = create_engine("postgresql://analyst:Sup3rS3cretPw@db.internal:5432/sales")',
    'aws_access_key_id = "AKIAQX3VLDRKZ7Q4WN2M"\n'
    'aws_secret_access_key = "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"',
    'client = OpenAI(api_key="sk-proj-Ab3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5")',
    "DB_PASSWORD=hunter2pw\nSECRET_KEY=django-insecure-8f#k2@x!q9z$w7v\nDEBUG=true",
]


def _import_ms() -> float:
    """The detector's own import in a fresh interpreter (the package imported first)."""
    code = (
        "import time, jupyter_memory; t = time.perf_counter();"
        "import jupyter_memory.core.secrets.detector;"
        "print((time.perf_counter() - t) * 1000)"
    )
    runs = [float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(5)]
    return statistics.median(runs)


def _per_cell_us(redact, cells: list[str]) -> dict[str, float]:
    samples = []
    for _ in range(ROUNDS):
        for cell in cells:
            t = time.perf_counter_ns()
            redact(cell)
            samples.append((time.perf_counter_ns() - t) / 1000)
    samples.sort()
    return {
        "p50_us": round(statistics.median(samples), 1),
        "p90_us": round(samples[int(len(samples) * 0.9)], 1),
        "max_us": round(samples[-1], 1),
    }


def main() -> None:
    import_ms = _import_ms()
    from jupyter_memory.core.secrets.detector import redact

    t = time.perf_counter()
    for cell in CELLS + SECRET_CELLS:  # first calls: the rules these cells wake get compiled
        redact(cell)
    first_ms = (time.perf_counter() - t) * 1000
    print(
        json.dumps(
            {
                "detector_import_ms": round(import_ms, 1),
                "first_calls_ms": round(first_ms, 1),
                "analysis_cell": _per_cell_us(redact, CELLS),
                "secret_cell": _per_cell_us(redact, SECRET_CELLS),
                "cells": len(CELLS) + len(SECRET_CELLS),
                "rounds": ROUNDS,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
