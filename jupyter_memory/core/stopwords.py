"""English stopwords dropped from the search index and from queries.

The Snowball project's English list (the words its stemmer's authors leave out
of an index), plus the fragments our tokenizer makes of contractions ("don't"
→ "don", "t"), a few chat fillers, and quantity and auxiliary words that
questions use ("how many", "has she ever", "what did he get"). Natural-language questions are full of
these ("what did she do when…"); kept, they match everything or — worse, when
rare in short notes — pull in notes by their grammar instead of their topic.
Chinese has no list: its bigrams carry IDF like any other token.
"""

from __future__ import annotations

_WORDS = """
    i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their
    theirs themselves what which who whom whose this that these those am is are
    was were be been being have has had having do does did doing would should
    could ought will shall can may might must a an the and but if or because as
    until while of at by for with about against between into through during
    before after above below to from up down in out on off over under again
    further then once here there when where why how all any both each few more
    most other some such no nor not only own same so than too very
    s t d ll m re ve don didn doesn isn aren wasn weren hasn haven hadn won
    wouldn shouldn couldn mustn shan let lets just also yes oh ok okay
    many much ever even done get gets got getting
"""

ENGLISH_STOPWORDS: frozenset[str] = frozenset(_WORDS.split())
