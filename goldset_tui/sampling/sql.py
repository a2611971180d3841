"""``goldset sample emit-sql``: the SQL that classifies and samples a log inside a warehouse,
drawing the very queries ``goldset sample --log`` draws locally.

What makes the two agree:

- **The same normalising**: every run of White_Space (and U+001C-U+001F) becomes one space, the
  ends are trimmed, the query is lowercased; the spelling is the most frequent original form,
  ties to the smallest string (byte order, which every engine's default string order is).
- **The same rules** (``rules.py``): each regular expression is written out with
  explicit code-point classes taken from Polars' own Unicode tables (``charsets.py``), in the
  syntax RE2 (DuckDB, BigQuery), Java (Spark) and Rust (Polars) share.
- **The same draw**: each query's uniform ``u`` is ``(x + 1) / 2**52`` with ``x`` the first 13
  hex digits of SHA-256("{seed}:{query}"), its key ``ln(u) / min(count, cap)``; per stratum the
  ``target`` largest keys win, ties to the smaller query. SHA-256 and the arithmetic up to the
  logarithm are exact everywhere; ``ln`` may differ by one unit in the last place between
  libraries (glibc for Python and DuckDB, fdlibm for Spark), which can only swap two queries
  whose keys agree to about 16 digits.

What an engine cannot express exactly is said in the SQL's opening comment (``CAVEATS``).

The SQL's result has the columns ``query_id, query, count, stratum, spelling``, ordered by
stratum then query: the local SAMPLE without ``inclusion_probability``, which needs the whole
stratum's weights; ``weights_sql`` gives them (stratum, weight, queries), and
``sample.add_probabilities`` turns the two results into the local SAMPLE, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from goldset_tui.errors import InputError
from goldset_tui.sampling.charsets import regex_class
from goldset_tui.sampling.rules import EDGE_PUNCTUATION, MIN_ENTITIES, NEGATION, SHORT_TOKENS

DIALECTS = ("duckdb", "spark", "bigquery")

CAVEATS = {
    "duckdb": (
        "lower() maps one code point at a time: a final capital sigma becomes 'σ' where Polars "
        "writes 'ς', and 'İ' becomes 'i' where Polars writes 'i' + U+0307; queries holding "
        "either normalise (and may be drawn) differently.",
    ),
    "spark": (
        "lower() is Java's String.toLowerCase in the JVM's default locale: run Spark with an "
        "English or root locale (a Turkish one lowercases 'I' to 'ı').",
        "ln() is fdlibm's (StrictMath): it may differ from glibc's by one unit in the last "
        "place, which swaps two queries only if their keys agree to about 16 digits.",
    ),
    "bigquery": (
        "not run here: generated and parsed only (sqlglot). LOWER() follows BigQuery's Unicode "
        "case mapping, which was not compared with Polars' (engines do differ: DuckDB's lower() "
        "on a final capital sigma and on 'İ').",
    ),
}

_PUNCT = "".join(f"\\x{{{ord(c):X}}}" for c in EDGE_PUNCTUATION)


@dataclass(frozen=True)
class Patterns:
    """The rules' regular expressions with explicit classes (the same text in every dialect)."""

    space: str
    edge: str
    alpha: str
    title: str
    ident: str


def patterns() -> Patterns:
    word, nonword = regex_class("word"), regex_class("word", negate=True)
    digit = regex_class("digit")
    upper, lower = regex_class("upper"), regex_class("lower")
    not_cased = regex_class("cased", negate=True)
    return Patterns(
        space=regex_class("space") + "+",
        edge=f"^[{_PUNCT}]+|[{_PUNCT}]+$",
        alpha=f"^{regex_class('letter')}+$",
        title=f"^{not_cased}*(?:{upper}{lower}*{not_cased}+)*{upper}{lower}*{not_cased}*$",
        ident=(
            f"[A-Z]{{2,}}_{digit}+"
            f"|(?:^|{nonword}){word}+_{word}+(?:{nonword}|$)"
            f"|(?:^|{nonword})[a-z]+[A-Z]{word}+(?:{nonword}|$)"
            f"|/v{digit}+/"
        ),
    )


class Dialect:
    """The few spellings that differ between engines."""

    def __init__(self, name: str):
        if name not in DIALECTS:
            raise InputError(None, f"--emit-sql: {name!r} is not one of {', '.join(DIALECTS)}")
        self.name = name

    def string(self, text: str) -> str:
        if self.name == "duckdb":  # standard SQL: backslashes are plain characters
            return "'" + text.replace("'", "''") + "'"
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"

    def ident(self, name: str) -> str:
        if self.name == "bigquery":
            return "`" + name.replace("`", "") + "`"
        if self.name == "spark":
            return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))
        return ".".join('"' + part.replace('"', '""') + '"' for part in name.split("."))

    def matches(self, value: str, pattern: str) -> str:
        p = self.string(pattern)
        return {
            "duckdb": f"regexp_matches({value}, {p})",
            "spark": f"({value} RLIKE {p})",
            "bigquery": f"REGEXP_CONTAINS({value}, {p})",
        }[self.name]

    def replace(self, value: str, pattern: str, by: str) -> str:
        flags = ", 'g'" if self.name == "duckdb" else ""
        return f"regexp_replace({value}, {self.string(pattern)}, {self.string(by)}{flags})"

    def trim_spaces(self, value: str) -> str:
        if self.name == "spark":
            return f"trim(BOTH ' ' FROM {value})"
        return f"trim({value}, ' ')"

    def sha_hex(self, value: str) -> str:
        return {
            "duckdb": f"sha256({value})",
            "spark": f"sha2({value}, 256)",
            "bigquery": f"TO_HEX(SHA256({value}))",
        }[self.name]

    def hex_to_int(self, hex13: str) -> str:
        return {
            "duckdb": f"CAST('0x' || {hex13} AS BIGINT)",
            "spark": f"CAST(conv({hex13}, 16, 10) AS BIGINT)",
            "bigquery": f"CAST(CONCAT('0x', {hex13}) AS INT64)",
        }[self.name]

    @property
    def double(self) -> str:
        return "FLOAT64" if self.name == "bigquery" else "DOUBLE"

    @property
    def bigint(self) -> str:
        return "INT64" if self.name == "bigquery" else "BIGINT"

    def concat(self, *parts: str) -> str:
        return f"CONCAT({', '.join(parts)})"

    def bool_or(self, value: str) -> str:
        return f"LOGICAL_OR({value})" if self.name == "bigquery" else f"bool_or({value})"

    def tokens(self, source: str) -> str:
        """``FROM`` items giving one row per token: ``query``, ``token``, ``pos`` (0-based)."""
        if self.name == "duckdb":
            return (
                f"(SELECT query, unnest(string_split(spelling, ' ')) AS token, "
                f"generate_subscripts(string_split(spelling, ' '), 1) - 1 AS pos FROM {source})"
            )
        if self.name == "spark":
            return (
                f"(SELECT query, t.pos AS pos, t.col AS token FROM {source} "
                "LATERAL VIEW posexplode(split(spelling, ' ')) t AS pos, col)"
            )
        return (
            f"(SELECT query, token, pos FROM {source} "
            "CROSS JOIN UNNEST(SPLIT(spelling, ' ')) AS token WITH OFFSET AS pos)"
        )


@dataclass(frozen=True)
class LogTable:
    table: str
    query_column: str = "query"
    count_column: str | None = None
    vocab_table: str | None = None  # a table with one column, word


def labels_sql(d: Dialect, log: LogTable, p: Patterns) -> list[tuple[str, str]]:
    """The CTEs that turn the log into labels: query, count, stratum, spelling."""
    raw = d.ident(log.query_column)
    n = f"CAST({d.ident(log.count_column)} AS {d.bigint})" if log.count_column else "1"
    spelling = d.trim_spaces(d.replace("raw", p.space, " "))
    word = d.replace("lower(token)", p.edge, "")
    negation = ", ".join(d.string(w) for w in NEGATION)
    if log.vocab_table:
        vocab_join = (
            f"LEFT JOIN (SELECT DISTINCT word AS vocab_word FROM {d.ident(log.vocab_table)}) v "
            "ON w.word = v.vocab_word"
        )
        misspelled = f"({d.matches('w.word', p.alpha)} AND v.vocab_word IS NULL)"
    else:
        vocab_join, misspelled = "", "FALSE"
    title = f"({d.matches('w.token', p.title)} AND w.pos > 0 AND w.token <> 'I')"
    return [
        ("log", f"SELECT {raw} AS raw, {n} AS n FROM {d.ident(log.table)} WHERE {raw} IS NOT NULL"),
        ("forms", f"SELECT {spelling} AS spelling, n FROM log"),
        (
            "per_spelling",
            "SELECT lower(spelling) AS query, spelling, SUM(n) AS n FROM forms "
            "WHERE spelling <> '' GROUP BY lower(spelling), spelling",
        ),
        (
            "picked",
            f"SELECT query, CAST(SUM(n) OVER (PARTITION BY query) AS {d.bigint}) AS count, "
            "spelling, ROW_NUMBER() OVER (PARTITION BY query ORDER BY n DESC, spelling) AS pick "
            "FROM per_spelling",
        ),
        ("distinct_queries", "SELECT query, count, spelling FROM picked WHERE pick = 1"),
        (
            "words",
            f"SELECT query, token, pos, {word} AS word FROM {d.tokens('distinct_queries')} "
            "WHERE token <> ''",
        ),
        (
            "flags",
            "SELECT w.query, COUNT(*) AS n_tokens, "
            f"{d.bool_or(f'w.word IN ({negation})')} AS negated, "
            f"{d.bool_or(misspelled)} AS misspelled, "
            f"SUM(CASE WHEN {title} THEN 1 ELSE 0 END) AS n_title "
            f"FROM words w {vocab_join} GROUP BY w.query",
        ),
        (
            "labels",
            "SELECT q.query, q.count, CASE "
            f"WHEN {d.matches('q.spelling', p.ident)} THEN 'exact_identifier' "
            "WHEN f.negated THEN 'negation' "
            "WHEN f.misspelled THEN 'misspelled' "
            f"WHEN COALESCE(f.n_tokens, 0) <= {SHORT_TOKENS} THEN 'short_keyword' "
            f"WHEN f.n_title >= {MIN_ENTITIES} THEN 'multi_entity' "
            "ELSE 'paraphrase' END AS stratum, q.spelling "
            "FROM distinct_queries q LEFT JOIN flags f ON q.query = f.query",
        ),
    ]


def _target(d: Dialect, targets: dict[str, int]) -> str:
    whens = " ".join(f"WHEN {d.string(s)} THEN {n}" for s, n in targets.items())
    return f"CASE stratum {whens} ELSE 0 END" if targets else "0"


def sample_sql(dialect: str, log: LogTable, *, seed: int, cap: int, targets: dict[str, int]) -> str:
    """One SELECT: the sampled queries, as the local SAMPLE has them (without probabilities)."""
    d = Dialect(dialect)
    p = patterns()
    hashed = d.sha_hex(d.concat(d.string(f"{seed}:"), "query"))
    u = (
        f"CAST({d.hex_to_int(f'substr({hashed}, 1, 13)')} + 1 AS {d.double}) "
        f"/ CAST(4503599627370496 AS {d.double})"
    )
    ctes = labels_sql(d, log, p) + [
        (
            "keyed",
            f"SELECT query, count, stratum, spelling, LN({u}) / CAST(LEAST(count, {cap}) AS "
            f"{d.double}) AS draw_key FROM labels",
        ),
        (
            "ranked",
            "SELECT *, ROW_NUMBER() OVER (PARTITION BY stratum ORDER BY draw_key DESC, query) "
            "AS draw_rank FROM keyed",
        ),
    ]
    body = ",\n".join(f"{name} AS (\n  {sql}\n)" for name, sql in ctes)
    query_id = d.concat("'q_'", f"substr({d.sha_hex('query')}, 1, 12)")
    return (
        header(d, log, seed=seed, cap=cap, targets=targets)
        + f"WITH\n{body}\nSELECT {query_id} AS query_id, query, count, stratum, spelling\n"
        f"FROM ranked WHERE draw_rank <= {_target(d, targets)}\nORDER BY stratum, query\n"
    )


def weights_sql(dialect: str, log: LogTable, *, cap: int) -> str:
    """Per stratum the number of queries of each weight, and the stratum's occurrences: what the
    inclusion probabilities and the manifest's traffic shares need."""
    d = Dialect(dialect)
    body = ",\n".join(f"{name} AS (\n  {sql}\n)" for name, sql in labels_sql(d, log, patterns()))
    return (
        f"-- goldset: the weights of every stratum, for the inclusion probabilities ({d.name})\n"
        f"WITH\n{body}\nSELECT stratum, LEAST(count, {cap}) AS weight, COUNT(*) AS queries, "
        "SUM(count) AS occurrences\nFROM labels GROUP BY stratum, LEAST(count, "
        f"{cap})\nORDER BY stratum, weight\n"
    )


def header(d: Dialect, log: LogTable, *, seed: int, cap: int, targets: dict[str, int]) -> str:
    lines = [
        f"goldset sample emit-sql {d.name}: classify the log in {log.table} and draw the sample",
        f"seed {seed}, weight = min(count, {cap}), targets "
        + ", ".join(f"{s}={n}" for s, n in targets.items()),
        "The same rules, caps and seeded draw as `goldset sample --log` (docs/sampling.md).",
        *(f"Caveat: {c}" for c in CAVEATS[d.name]),
    ]
    if log.vocab_table:
        lines.append(f"Vocabulary for the misspelling rule: table {log.vocab_table} (column word).")
    else:
        lines.append("No vocabulary: the misspelling rule is skipped, as without --vocab.")
    return "".join(f"-- {line}\n" for line in lines)
