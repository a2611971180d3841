"""The sample's queries, written by hand the way people type into a docs search box.

Seven per query shape (docs/background.md#strata-follow-mechanisms), each with the stratum it was
written for (the *intended* stratum; `goldset classify`'s rules will file a few of them elsewhere,
as any cheap classifier does: docs/background.md#classifier-errors). Lowercase, terse, typos left in
on purpose.
"""

from __future__ import annotations

STRATA = (
    "exact_identifier",
    "misspelled",
    "negation",
    "short_keyword",
    "multi_entity",
    "paraphrase",
)

# (query_id, text, intended stratum). Query ids are stable: never renumber, only append.
QUERIES: list[tuple[str, str, str]] = [
    # Pasted identifiers and error names: rare exact tokens, BM25's home ground.
    ("q01", "json.JSONDecodeError", "exact_identifier"),
    ("q02", "os.path.join", "exact_identifier"),
    ("q03", "shutil.copytree dirs_exist_ok", "exact_identifier"),
    ("q04", "subprocess.CalledProcessError returncode", "exact_identifier"),
    ("q05", "functools.lru_cache maxsize", "exact_identifier"),
    ("q06", "O_NONBLOCK", "exact_identifier"),
    ("q07", "PROTOCOL_TLS_CLIENT", "exact_identifier"),
    # Typos: a misspelled token has document frequency zero for a term matcher.
    ("q08", "jsno decode error", "misspelled"),
    ("q09", "subproccess timeout", "misspelled"),
    ("q10", "pathlib glob recursivly", "misspelled"),
    ("q11", "datetime timezone convertion", "misspelled"),
    ("q12", "dequeu maxlen", "misspelled"),
    ("q13", "tempory directory cleanup", "misspelled"),
    ("q14", "sqlite3 paramter substitution", "misspelled"),
    # Negations: neither a term matcher nor an embedding reads "not".
    ("q15", "copy a dict without references", "negation"),
    ("q16", "sort not in place", "negation"),
    ("q17", "read a big file without loading it all into memory", "negation"),
    ("q18", "thread that does not keep the program from exiting", "negation"),
    ("q19", "json dumps without escaping unicode", "negation"),
    ("q20", "split a command line but not inside quotes", "negation"),
    ("q21", "random token that cannot be guessed for passwords", "negation"),
    # Short keywords: two or three words, no verb.
    ("q22", "asyncio queue", "short_keyword"),
    ("q23", "csv dictreader", "short_keyword"),
    ("q24", "heap push pop", "short_keyword"),
    ("q25", "sha256 hexdigest", "short_keyword"),
    ("q26", "uuid4", "short_keyword"),
    ("q27", "argparse subcommands", "short_keyword"),
    ("q28", "gzip open", "short_keyword"),
    # Several named things at once.
    ("q29", "Path and shutil copy a file", "multi_entity"),
    ("q30", "ThreadPoolExecutor inside an asyncio Event loop", "multi_entity"),
    ("q31", "Decimal or Fraction for money rounding", "multi_entity"),
    ("q32", "Counter vs defaultdict for counting words", "multi_entity"),
    ("q33", "datetime with ZoneInfo and UTC offset", "multi_entity"),
    ("q34", "Popen stdout read by a Thread", "multi_entity"),
    ("q35", "TarFile and ZipFile extract all members", "multi_entity"),
    # Paraphrases: the answer shares few words with the question.
    ("q36", "how do i stop a thread from running forever", "paraphrase"),
    ("q37", "run a shell command and capture what it prints", "paraphrase"),
    ("q38", "make my function remember results it already worked out", "paraphrase"),
    ("q39", "wait for several jobs and take whichever finishes first", "paraphrase"),
    ("q40", "check whether two files have identical contents", "paraphrase"),
    ("q41", "find out how long a small piece of code takes", "paraphrase"),
    ("q42", "spread work over all cpu cores", "paraphrase"),
]
