"""Case memory write policy and the spec 000 decision flow (pure rules, no I/O).

* ``team-profile.md``: ``Memory Write Policy: <value>`` on one line, or a
  ``## Memory Write Policy`` heading with the value on the next non-empty line.
* Exclusions: already registered in ``evidence_registry.json``, already in a
  working paper, or a plain operation record ("I called tool X").
* Deduplication against existing entries: skip, update (links/status only),
  or create (linked to the entry whose topic, evidence or hypotheses it continues).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..._i18n import M_, Message
from ...exceptions import ParseError
from ..knowledge.identity import same_entry
from ..text import analyze, normalize
from .entry_format import CaseEntry

POLICIES = ("silent", "notify", "disabled")
DEFAULT_POLICY = "notify"
PROFILE_NAME = "team-profile.md"
NOISE_LIMIT = 30
_KEY = "memory write policy"
# ``[-*\s]*`` already covers the ``\**\s*`` that followed it, and ``\s*(?:\*+\s*)?``
# is ``\s*\**\s*`` without two adjacent ``\s*`` (which split a run of spaces every
# possible way: quadratic in the run).
_INLINE_RE = re.compile(r"^[-*\s]*memory write policy\s*(?:\*+\s*)?[:：]\s*(.*)$", re.IGNORECASE)
_HEADING_RE = re.compile(r"^#{1,6}\s*memory write policy\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class WritePolicy:
    value: str
    source: str | None = None  # the team-profile.md that set it, None when defaulted
    line: int | None = None
    hint: Message | None = None  # why the default applies and how to change it


def _clean_value(raw: str) -> str:
    value = raw.strip().strip("`*_\"' ").split("#", 1)[0].strip().strip("`*_\"' ")
    return value.split()[0].lower() if value.split() else ""


def _hint(path: str, why: Message) -> Message:
    return M_(
        "{why}; using the safe default 'notify'. Set it with a line "
        "'Memory Write Policy: silent|notify|disabled' in {path}.",
        why=why,
        path=path,
    )


def parse_team_profile(text: str | None, *, path: str = PROFILE_NAME) -> WritePolicy:
    """The policy a team profile sets; missing or unknown: ``notify`` with a hint."""
    if text is None:
        return WritePolicy(DEFAULT_POLICY, hint=_hint(path, M_("{path} not found", path=path)))
    lines = text.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        raw: str | None = None
        at = i
        m = _INLINE_RE.match(stripped)
        if m:
            raw = m.group(1)
        elif _HEADING_RE.match(stripped):
            at = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), -1)
            raw = lines[at].strip().lstrip("-*> ") if at >= 0 else ""
        if raw is None:
            continue
        value = _clean_value(raw)
        if value not in POLICIES:
            # Spec 000: a missing or not yet migrated setting means the safe
            # default notify, with a hint; it never stops writing.
            why = M_(
                "Memory Write Policy {value!r} at {path}:{line} is not one of {policies}",
                value=raw.strip(),
                path=path,
                line=at + 1,
                policies=", ".join(POLICIES),
            )
            return WritePolicy(DEFAULT_POLICY, source=path, line=at + 1, hint=_hint(path, why))
        return WritePolicy(value, source=path, line=at + 1)
    return WritePolicy(
        DEFAULT_POLICY,
        source=None,
        hint=_hint(path, M_("no Memory Write Policy in {path}", path=path)),
    )


# -- exclusions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RegistryItem:
    id: str
    description: str


_DESC_KEYS = ("description", "desc", "summary", "title", "content", "text", "描述", "摘要")
_ID_KEYS = ("id", "evidence_id", "编号")


def _item(value: object, key: str | None, path: str, where: str) -> RegistryItem:
    if isinstance(value, str):
        return RegistryItem(key or "", value)
    if not isinstance(value, dict):
        raise ParseError(
            M_("{where}: an evidence item must be an object or a string", where=where), path=path
        )
    item_id = next((str(value[k]) for k in _ID_KEYS if k in value), key or "")
    desc = next((value[k] for k in _DESC_KEYS if isinstance(value.get(k), str)), "")
    return RegistryItem(item_id, desc)


def registry_items(data: object, *, path: str = "evidence_registry.json") -> list[RegistryItem]:
    """Evidence items of a decoded registry: a list of items, ``{"items"|"evidence": [...]}``,
    or an object keyed by evidence id. Each item has an id and a description."""
    if isinstance(data, dict):
        for key in ("items", "evidence", "entries"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if isinstance(data, list):
        return [_item(v, None, path, f"item {i}") for i, v in enumerate(data)]
    if isinstance(data, dict):
        return [_item(v, str(k), path, f"item {k!r}") for k, v in data.items()]
    raise ParseError(M_("must be a JSON list of evidence items or an object of them"), path=path)


def _norm(text: str) -> str:
    """Comparison key: NFKC + casefold, whitespace removed (Chinese text is
    written with or without spaces around Latin words and numbers)."""
    return "".join(normalize(text).split())


MIN_MATCH_CHARS = 6


def match_registry(title: str, body: str, items: Sequence[RegistryItem]) -> RegistryItem | None:
    """The registered item this note merely restates: its description equals the
    title or body, or contains the whole body. A body that quotes a description
    and adds a doubt is *not* excluded (that doubt is what case memory is for)."""
    t, b = _norm(title), _norm(body)
    for item in items:
        d = _norm(item.description)
        if len(d) < MIN_MATCH_CHARS:
            continue
        if d in (t, b) or (len(b) >= MIN_MATCH_CHARS and b in d):
            return item
    return None


def match_working_paper(body: str, papers: Sequence[tuple[str, str]]) -> str | None:
    """Name of the working paper that already contains the whole body."""
    b = _norm(body)
    if len(b) < MIN_MATCH_CHARS:
        return None
    for name, text in papers:
        if b in _norm(text):
            return name
    return None


_SENTENCE_SPLIT = re.compile(r"[。！？!?；;\n]+|\.(?:\s+|$)")
_OPERATION = [
    re.compile(
        # ``\s*(?:X\s*)?``, not ``\s*X?\s*``: two adjacent ``\s*`` were quadratic in a run of spaces.
        r"^(?:我们?|助手|ai)?\s*(?:(?:先|已经|已|刚才|刚|又|再)\s*)?"
        r"(?:调用|运行|执行|打开|加载|导入|导出|查询了|检索了|跑了|使用了)"
    ),
    re.compile(r"^先.{1,40}再.{1,40}$"),
    re.compile(
        r"^(?:i|we|the assistant|assistant)?\s*(?:first\s+|then\s+|just\s+|also\s+)?"
        r"(?:called|ran|invoked|executed|used|opened|loaded|imported|exported|queried|fetched)\b"
    ),
    re.compile(r"^first\b.{1,60}\bthen\b"),
]
_UNLESS = re.compile(
    r"意外|发现|异常|假设|暂缓|因为|原因|怀疑|矛盾|不一致|推翻|修正|疑|"
    r"unexpect|surpris|found|discover|anomal|hypothes|because|defer|paus|suspic|"
    r"inconsisten|contradict|revis|odd|strange"
)


def is_operation_record(body: str) -> bool:
    """True for a note that only says what was done ("I called tool X"), with no
    unexpected finding, changed hypothesis or decision reason in it."""
    text = normalize(body)
    if _UNLESS.search(text):
        return False
    sentences = [s.strip(" ，,") for s in _SENTENCE_SPLIT.split(text) if s.strip(" ，,")]
    return bool(sentences) and all(any(p.search(s) for p in _OPERATION) for s in sentences)


# ``[^\S\n]*`` (spaces of this line), not ``\s*``: from every line start of a run of
# blank lines ``\s*`` read all the rest of the run (quadratic in it); a match now starts
# on the keyword's own line, and what is found (or counted) is the same.
_STEP_RE = re.compile(
    r"^[^\S\n]*(?:step\s*\d+|第\s*[一二三四五六七八九十\d]+\s*步)", re.IGNORECASE | re.MULTILINE
)


def is_reasoning_chain(body: str) -> bool:
    """A step-by-step reasoning chain ("Step 1 … Step 2 …", "第一步 … 第二步 …"):
    spec 000 keeps it out of v2 ``think`` entries, which hold only the
    reviewable decision reason."""
    return len(_STEP_RE.findall(normalize(body))) >= 2


# -- deduplication and linking -----------------------------------------------------------------


@dataclass(frozen=True)
class CaseNoteDecision:
    action: str  # "skip" | "update" | "create"
    target: str | None  # the existing entry skipped/updated
    related: str | None  # for create: the entry it continues
    reason: Message


def _tokens(text: str) -> set[str]:
    return set(analyze(text))


def topic_similarity(a: str, b: str) -> float:
    ta, tb = _tokens(a), _tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


TOPIC_THRESHOLD = 0.5


def decide_case_note(
    candidate: CaseEntry, existing: Sequence[tuple[str, CaseEntry]], *, status_given: bool = True
) -> CaseNoteDecision:
    """Spec 000's flow once a note is admissible: SKIP / UPDATE / CREATE(+related).

    ``status_given`` False means the caller did not ask for a status, so the
    candidate's default status is no change."""
    title, body = _norm(candidate.title), _norm(candidate.body)
    for name, old in existing:
        if old.type != candidate.type:
            continue
        exact = _norm(old.title) == title and _norm(old.body) == body
        # 宁可少记 (spec 000): the same doubt in new words is the same entry (issue 32).
        if not exact and not same_entry(candidate.body, old.body):
            continue
        new_links = (
            set(candidate.evidence) - set(old.evidence)
            or set(candidate.hypotheses) - set(old.hypotheses)
            or set(candidate.files) - set(old.files)
            or (candidate.related is not None and candidate.related != old.related)
        )
        status_changed = status_given and candidate.status != old.status
        if not new_links and not status_changed:
            reason = (
                M_("exact duplicate of {name}", name=name)
                if exact
                else M_("the same note in other words as {name}", name=name)
            )
            return CaseNoteDecision("skip", name, None, reason)
        if old.legacy:
            return CaseNoteDecision(
                "create",
                None,
                name,
                M_("{name} is legacy v1 (never rewritten); new linked entry", name=name),
            )
        return CaseNoteDecision(
            "update", name, None, M_("only status or links changed in {name}", name=name)
        )
    best: tuple[float, str, str] | None = None
    for name, old in existing:
        score = 2.0 * len(set(candidate.evidence) & set(old.evidence))
        score += 2.0 * len(set(candidate.hypotheses) & set(old.hypotheses))
        sim = topic_similarity(candidate.title, old.title)
        if sim >= TOPIC_THRESHOLD:
            score += 3.0 + sim
        if score > 0 and (best is None or (score, old.date + name) > (best[0], best[1])):
            best = (score, old.date + name, name)
    if candidate.related is not None:
        return CaseNoteDecision("create", None, candidate.related, M_("new entry (related given)"))
    if best is not None:
        return CaseNoteDecision(
            "create", None, best[2], M_("new judgement continuing {name}", name=best[2])
        )
    return CaseNoteDecision("create", None, None, M_("new entry"))


def noise_suggestion(count: int) -> Message | None:
    if count <= NOISE_LIMIT:
        return None
    return M_(
        "this case has {count} memory entries (10-{limit} is the suggested size); "
        "consider a cleanup: mark settled entries 已排除 and remove noise at archive.",
        count=count,
        limit=NOISE_LIMIT,
    )
