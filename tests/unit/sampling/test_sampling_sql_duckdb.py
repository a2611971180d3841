"""`goldset sample --emit-sql duckdb`, run for real in DuckDB: the same labels and the same
sample, byte for byte, as `goldset sample --log` on the same log, exotic Unicode included; and
the documented places where DuckDB's lower() differs from Polars'."""

from __future__ import annotations

import tomllib
from pathlib import Path

import duckdb
import polars as pl
import sqlglot
from warehouse_logs import TARGETS, finish, local_and_sql

from goldset_tui.cli import main
from goldset_tui.sampling.sql import LogTable, sample_sql, weights_sql


def run(con: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return pl.DataFrame(cursor.fetchall(), schema=names, orient="row")


def connect(case: dict) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"CREATE VIEW query_log AS SELECT * FROM read_parquet('{case['table']}')")
    vocab = case["bundle"]["vocab"]
    con.execute(f"CREATE VIEW goldset_vocab AS SELECT * FROM read_csv('{vocab}', all_varchar=true)")
    return con


def test_duckdb_draws_the_local_sample_byte_for_byte(tmp_path: Path) -> None:
    case = local_and_sql(tmp_path, "duckdb", TARGETS)
    con = connect(case)
    rows = run(con, case["bundle"]["sample"].read_text())
    weights = run(con, case["bundle"]["weights"].read_text())
    got = finish(rows, weights, TARGETS, tmp_path / "duckdb.csv")
    want = case["local"].read_bytes()
    assert rows.height > 100 and rows["stratum"].n_unique() == 6
    assert got == want


def test_every_query_gets_the_same_stratum_and_spelling(tmp_path: Path) -> None:
    everything = dict.fromkeys(TARGETS, 10**6)  # a sample of every query: the whole labels table
    case = local_and_sql(tmp_path, "duckdb", everything)
    con = connect(case)
    rows = run(con, case["bundle"]["sample"].read_text())
    local = pl.read_csv(case["local"], infer_schema=False).drop("inclusion_probability")
    assert rows.height == local.height > 500
    joined = local.join(rows.cast(pl.String), on="query", suffix="_sql")
    differ = joined.filter(
        (pl.col("stratum") != pl.col("stratum_sql"))
        | (pl.col("spelling") != pl.col("spelling_sql"))
    )
    assert differ.height == 0, differ.head(5).to_dicts()


def test_lower_differs_where_the_caveat_says(tmp_path: Path) -> None:
    con = duckdb.connect()
    for text in ("\u039f\u0394\u039f\u03a3", "\u0130stanbul"):  # a final sigma; dotted capital I
        duck = con.execute("SELECT lower(?)", [text]).fetchone()[0]
        assert duck != pl.Series([text]).str.to_lowercase()[0], (
            "DuckDB now lowercases like Polars: drop the caveat in sql.CAVEATS and the docs"
        )


def test_the_bigquery_sql_parses() -> None:
    log = LogTable("project.dataset.query_log", "query", "n", "project.dataset.vocab")
    for sql in (
        sample_sql("bigquery", log, seed=3, cap=50, targets=TARGETS),
        weights_sql("bigquery", log, cap=50),
    ):
        (tree,) = sqlglot.parse(sql, read="bigquery")
        assert tree is not None and "REGEXP_CONTAINS" in tree.sql(dialect="bigquery")


def test_each_manifest_names_the_engine_that_drew_the_sample(tmp_path: Path) -> None:
    case = local_and_sql(tmp_path, "duckdb", TARGETS)
    local = tomllib.loads(case["local"].with_name("local.manifest.toml").read_text())
    sql = tomllib.loads(case["bundle"]["manifest"].read_text())
    assert (local["kind"], local["engine"]) == ("sample", "polars")
    assert (sql["kind"], sql["engine"], sql["seed"], sql["targets"]) == (
        "sample-sql",
        "duckdb",
        11,
        TARGETS,
    )
    assert sql["outputs"]["vocab"]["path"].endswith("duckdb.vocab.csv")


def test_emit_sql_refuses_what_it_cannot_do_in_one_line(tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "s.sql")
    base = ["sample", "--emit-sql", "spark", "-o", out, "--seed", "1"]
    assert main([*base, "--total", "160"]) == 2
    assert "--emit-sql needs --targets" in capsys.readouterr().err
    assert main([*base[:-2], "--targets", "negation=5"]) == 2
    assert "--seed is required" in capsys.readouterr().err
    assert main([*base[:4], str(tmp_path / "s.txt"), "--seed", "1", "--targets", "negation=5"]) == 2
    assert "-o FILE.sql" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_finish_turns_the_warehouse_exports_into_the_local_sample(tmp_path: Path) -> None:
    case = local_and_sql(tmp_path, "duckdb", TARGETS)
    con = connect(case)
    bundle = case["bundle"]
    for name in ("sample", "weights"):
        body = bundle[name].read_text().rstrip().rstrip(";")
        con.execute(f"COPY ({body}) TO '{tmp_path / name}.csv' (HEADER)")  # the warehouse's export
    out = tmp_path / "golden.csv"
    argv = ["sample", "--finish", str(bundle["sample"]), "-o", str(out)]
    argv += ["--rows", str(tmp_path / "sample.csv"), "--weights", str(tmp_path / "weights.csv")]
    assert main(argv) == 0
    assert out.read_bytes() == case["local"].read_bytes()
    manifest = tomllib.loads((tmp_path / "golden.manifest.toml").read_text())
    local = tomllib.loads(case["local"].with_name("local.manifest.toml").read_text())
    assert manifest["engine"] == "duckdb" and local["engine"] == "polars"
    assert manifest["queries"] == local["queries"] and manifest["strata"] == local["strata"]
    mine = tmp_path / "golden.strata.csv"
    assert mine.read_bytes() == case["local"].with_name("local.strata.csv").read_bytes()
    # The traffic shares to the last bit. The local draw also writes the headlines' design
    # effects, which need every query's count; the warehouse's weights table has only the capped
    # weights, so the report falls back on the sample's own estimate (docs/report.md).
    local_traffic = pl.read_csv(case["local"].with_name("local.traffic.csv"))
    assert {"design_effect_per_search", "design_effect_per_query"} <= set(local_traffic.columns)
    warehouse = tmp_path / "golden.traffic.csv"
    expected = local_traffic.select("stratum", "share")
    assert warehouse.read_text() == expected.write_csv()
