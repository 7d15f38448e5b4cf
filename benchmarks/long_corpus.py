"""A long-message chat corpus built from the LoCoMo dev half (issue 33).

Real assistant chats hold a few facts in long messages: a user's turn of one or
two sentences and an assistant reply of a few thousand characters around it.
LoCoMo's observations are short (~90 characters), so for each conversation:

* the observations of a session, in turn order, are cut into runs of one to
  three consecutive turns; each run becomes one message: the user's part (the
  observations as written) and an assistant-style reply — an opening that
  echoes a few of the user's content words, then generic advice paragraphs
  drawn from a fixed pool — until the message is 2,000–4,000 characters long;
* distractor messages (no evidence) are added until the conversation has
  ``TARGET_MESSAGES`` messages: assistant replies to unrelated requests, with
  sentences from *other* conversations' session summaries mixed in (other
  people, similar topics — what a real haystack of unrelated sessions looks like).

Each message keeps the turn ids of the observations it holds, so a question's
evidence (turn ids) names the messages answering it, as in ``quality_bench.py``.
Deterministic (seeded): the same data file gives the same corpus.
"""

from __future__ import annotations

import random
import re
from datetime import datetime

from quality_bench import observations

TARGET_MESSAGES = 290
MIN_CHARS, MAX_CHARS = 2000, 4000
_TURN = re.compile(r"D(\d+):(\d+)")
_WORD = re.compile(r"[A-Za-z]{5,}")

OPENINGS = (
    "That sounds like a lot is going on with {a} and {b}. Let me share a few thoughts.",
    "Thanks for telling me about {a}. It is clear that {b} matters a great deal to you.",
    "It is wonderful to hear about {a}! Here are some ideas that might help with {b}.",
    "I appreciate you sharing this about {a}. Many people find that {b} takes time.",
    "What a meaningful update about {a}. Below are some suggestions related to {b}.",
)
ADVICE = (
    "First, it can help to set aside a little time each week to reflect on what is working.",
    "Try breaking the larger goal into smaller steps, so that progress feels manageable.",
    "Remember that setbacks are a normal part of any journey and do not define the outcome.",
    "Keeping a simple journal is a practical way to notice patterns over several months.",
    "Talking things through with a trusted friend often brings a fresh perspective.",
    "Consider writing down three things that went well at the end of every day.",
    "If the schedule feels crowded, look for one commitment that could be postponed.",
    "Small routines, such as a short walk after lunch, add up over the course of a year.",
    "Local community centers frequently offer workshops, classes and volunteer roles.",
    "Online forums can be helpful, though it is worth checking the advice against reliable sources.",
    "Be patient with yourself: building a new habit usually takes several weeks.",
    "Planning ahead for busy periods makes it easier to protect time for rest.",
    "It may be useful to compare a few options side by side before making a decision.",
    "Budgeting a modest amount every month can make a bigger plan feel realistic.",
    "Celebrating milestones, even small ones, keeps motivation high.",
    "When energy is low, choose the easiest next step rather than the perfect one.",
    "Asking open questions helps other people share their own experiences.",
    "A checklist can reduce stress before an important event or trip.",
    "Many libraries lend books, audiobooks and even equipment free of charge.",
    "Sleep, regular meals and some movement support almost every other goal.",
    "Feedback from a mentor can point out strengths you might not notice yourself.",
    "It is fine to change direction when you learn something new along the way.",
    "Setting a clear intention for the week makes daily choices simpler.",
    "Sharing the workload with family members can free up valuable hours.",
    "Photos and short notes are a lovely way to remember special moments.",
    "Exploring a new hobby can open doors to friendships and unexpected opportunities.",
    "If costs are a concern, look for second-hand options or seasonal discounts.",
    "Practising gratitude has been linked to better mood and stronger relationships.",
    "Keep expectations flexible, because plans rarely unfold exactly as imagined.",
    "A quiet morning routine gives the rest of the day a calmer start.",
    "Professional advice is worth seeking whenever health or safety is involved.",
    "Writing a short summary after each attempt makes the next attempt easier.",
    "Joining a group with similar interests provides encouragement and accountability.",
    "Reading about how others handled similar situations can be reassuring.",
    "Limiting notifications during focused work helps attention last longer.",
    "Preparing materials the night before saves time when mornings are hectic.",
)
CLOSINGS = (
    "I hope this helps, and feel free to tell me how it goes.",
    "Let me know if you would like more detail on any of these points.",
    "Wishing you the best with everything, and I am happy to help further.",
    "If anything changes, I can suggest a different approach.",
)
REQUESTS = (
    "Can you suggest a weekly meal plan that is easy to prepare?",
    "What are some tips for organising a small home office?",
    "How should I prepare for a job interview next month?",
    "Could you recommend ways to stay active during winter?",
    "What is a good way to learn a new language as an adult?",
    "How do I plan a weekend trip on a tight budget?",
    "What should I consider when buying a used car?",
    "Can you explain how to start a vegetable garden?",
    "How can I improve my focus while studying?",
    "What are thoughtful gift ideas for a coworker?",
)


def _turn_key(turn: str) -> tuple[int, int]:
    m = _TURN.match(turn)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _summary_sentences(conv: dict) -> list[str]:
    text = " ".join(str(v) for v in conv.get("session_summary", {}).values())
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 40]


def _reply(rng: random.Random, words: list[str], target: int, extra: list[str]) -> str:
    a, b = rng.sample(words, 2) if len(words) >= 2 else [*words, "this", "that"][:2]
    parts = [rng.choice(OPENINGS).format(a=a, b=b)]
    paragraph: list[str] = []
    length = len(parts[0])
    while length < target:
        if extra and rng.random() < 0.15:
            sentence = rng.choice(extra)
        elif words and rng.random() < 0.08:
            advice = rng.choice(ADVICE)
            sentence = f"With {rng.choice(words)} in mind, {advice[0].lower()}{advice[1:]}"
        else:
            sentence = rng.choice(ADVICE)
        paragraph.append(sentence)
        length += len(sentence) + 1
        if len(paragraph) >= rng.randint(3, 6):
            parts.append(" ".join(paragraph))
            paragraph = []
    if paragraph:
        parts.append(" ".join(paragraph))
    parts.append(rng.choice(CLOSINGS))
    return "\n\n".join(parts)


def long_messages(conv: dict, others: list[dict], seed: int = 33) -> list[dict]:
    """The conversation as long messages: dicts like ``observations()`` rows
    (``text``, ``turns``, ``speaker``, ``session``, ``created``)."""
    rng = random.Random(f"{seed}-{conv['sample_id']}")
    obs = observations(conv)
    by_session: dict[int, list[dict]] = {}
    for o in obs:
        by_session.setdefault(o["session"], []).append(o)
    extra = [s for other in others for s in _summary_sentences(other)]
    out: list[dict] = []
    for session in sorted(by_session):
        rows = sorted(by_session[session], key=lambda o: _turn_key(o["turns"][0]))
        i = 0
        while i < len(rows):
            n = rng.randint(1, 3)
            run, i = rows[i : i + n], i + n
            user = " ".join(o["text"] for o in run)
            words = sorted({w.lower() for w in _WORD.findall(user)})
            target = rng.randint(MIN_CHARS, MAX_CHARS) - len(user)
            reply = _reply(rng, words, target, [])
            out.append(
                {
                    "text": f"{user}\n\n{reply}",
                    "turns": [t for o in run for t in o["turns"]],
                    "speaker": run[0]["speaker"],
                    "session": session,
                    "created": run[0]["created"],
                }
            )
    dates: list[datetime] = sorted({o["created"] for o in obs})
    while len(out) < TARGET_MESSAGES:
        request = rng.choice(REQUESTS)
        words = sorted({w.lower() for w in _WORD.findall(request)})
        reply = _reply(rng, words, rng.randint(MIN_CHARS, MAX_CHARS) - len(request), extra)
        created = rng.choice(dates)
        session = next(o["session"] for o in obs if o["created"] == created)
        out.append(
            {
                "text": f"{request}\n\n{reply}",
                "turns": [],
                "speaker": "user",
                "session": session,
                "created": created,
            }
        )
    # Imported in time order, as a chat grows; a day's distractors fall among its messages.
    order = {id(m): (m["created"], rng.random()) for m in out}
    out.sort(key=lambda m: order[id(m)])
    return out
