"""Round twelve: one word in place of another in one sentence is another object (issue 32).

Two texts that are the same sentence once synonyms, values, acronyms and polarity are read,
but for one content word (or one short Chinese run) on each side,
name two objects — a site, a product, a population — and are kept apart, never merged nor
superseded, whatever an embedding or the known changes say (e5 puts "tulips …" and "roses …"
as near as any paraphrase). What is not one word in place of another keeps its reading: a value
changed, a polarity, a word moved, one character for another, a preposition.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core.knowledge.identity import KnownChanges, Relation, relate
from jupyter_memory.core.knowledge.identity_analysis import analyse


class Changes:
    """A similarity that calls everything a paraphrase (cosine 0.99, all nearest changes
    paraphrases) and records whether the known changes were asked."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, a: str, b: str) -> float:
        return 0.99

    def paraphrase_share(self, a: str, b: str, k: int) -> float | None:
        self.asked += 1
        return 1.0


ONE_WORD_APART = [
    ("Tulips unsold three days after delivery are moved to the discount bucket.",
     "Roses unsold three days after delivery are moved to the discount bucket."),
    ("Refunds for tulips are issued within 7 days of delivery.",
     "Refunds for roses are issued within 7 days of delivery."),
    ("Sales per machine per day exclude machines moved during the month.",
     "Sales per machine per day exclude machines serviced during the month."),
    ("玫瑰到货三天未售出的转入折扣区。", "郁金香到货三天未售出的转入折扣区。"),
    ("教材费在学员报名后7天内未开始练车的，可全额退款。",
     "学费在学员报名后7天内未开始练车的，可全额退款。"),
    ("试用期不计入会员的平均租期。", "免租期不计入会员的平均租期。"),
    ("入住率口径：已售房晚 ÷ 可售房晚，自用房算作已售。",
     "入住率口径：已售房晚 ÷ 可售房晚，免费房算作已售。"),
]  # fmt: skip


def test_the_double_asks_the_known_changes() -> None:
    assert isinstance(Changes(), KnownChanges)


@pytest.mark.parametrize(("new", "known"), ONE_WORD_APART)
def test_one_word_in_place_of_another_is_another_object_in_both_directions(
    new: str, known: str
) -> None:
    for a, b in ((new, known), (known, new)):
        changes = Changes()
        for similarity in (None, lambda a, b: 0.99, changes):
            found = relate(a, b, similarity)
            assert found.kind is Relation.RELATED, (a, b, similarity)
            assert found.slot == "word"
        # Decided before the embedding: neither the cosine nor the known changes are asked.
        assert changes.asked == 0 and relate(a, b, changes).cosine is None


@pytest.mark.parametrize(
    ("new", "known", "kind"),
    [
        # A value changed: an update, not another object.
        ("Riverside branch members get free parking for 2 hours on weekends.",
         "Riverside branch members get free parking for 3 hours on weekends.", Relation.UPDATE),
        ("玫瑰到货三天未售出的转入折扣区。", "玫瑰到货五天未售出的转入折扣区。", Relation.UPDATE),
        # A polarity word: the opposite.
        ("Tulips are included in the discount bucket count.",
         "Tulips are excluded from the discount bucket count.", Relation.CONTRADICTS),
        ("折扣区的销量包含玫瑰。", "折扣区的销量不含玫瑰。", Relation.CONTRADICTS),
    ],
)  # fmt: skip
def test_a_value_or_a_polarity_keeps_its_reading(new: str, known: str, kind: Relation) -> None:
    for a, b in ((new, known), (known, new)):
        assert relate(a, b).kind is kind
        assert relate(a, b, lambda a, b: 0.99).kind is kind


@pytest.mark.parametrize(
    ("new", "known"),
    [
        # A word of one side written elsewhere in the other: moved, a rewording.
        ("The overtime rate is 1.5x the hourly rate.",
         "Overtime is paid at 1.5 times the hourly rate."),
        # A preposition is no object: "window: 14 days" / "within 14 days".
        ("Subscription conversion window: 14 days from sign-up.",
         "Subscription conversion is measured within 14 days of sign-up."),
        # One character for another is as often two words cut at a function character.
        ("events表的分区字段是event_date，查询务必带上它", "events表按event_date分区，查询时一定要过滤它。"),
        # Another form of one word.
        ("Withdrawn orders are excluded from the refund rate.",
         "Withdrew orders are excluded from the refund rate."),
        # Too little shared: the frame is under three words.
        ("Tulips wilt.", "Roses wilt."),
    ],
)  # fmt: skip
def test_what_is_not_one_word_in_place_of_another_is_left_to_the_other_readings(
    new: str, known: str
) -> None:
    for a, b in ((new, known), (known, new)):
        assert relate(a, b).slot != "word"
        assert relate(a, b, lambda a, b: 0.99).slot != "word"


def test_a_time_written_with_zao_and_a_range_with_zhi_read_as_the_other_wording() -> None:
    # 早7点 = 上午7点; 至 = 到: the same rule, not 区间 against 早 / 至.
    a, b = "高峰时段客流的统计区间为上午七点到九点。", "高峰时段客流按早7点至9点统计。"
    assert analyse(a).slot("time") == analyse(b).slot("time") == {"07:00", "09:00"}
    assert relate(a, b).kind is Relation.SAME


def test_the_count_of_daily_active_users_is_the_metric_itself() -> None:
    # 日活跃用户数 is DAU: no 数 left behind to read 付费人数 / 付费用户数 as two objects.
    a, b = "付费率 = 当日付费人数 ÷ 日活跃用户数。", "付费率按日活口径计算：当日付费用户数 / DAU。"
    assert analyse(a).slot("metric") == analyse(b).slot("metric")
    assert relate(a, b).slot != "word"


def test_a_long_pair_one_word_apart_is_read_so() -> None:
    # Read by cutting the common beginning and end (no alignment): any length.
    frame = " ".join(f"clause{i} stays" for i in range(3000))
    a, b = f"Tulips {frame}.", f"Roses {frame}."
    assert relate(a, b).slot == "word"
    assert relate(a, b + " extra").slot != "word"


@pytest.mark.parametrize(
    "text", ["告别厅每场使用时长为两小时。", "车牌识别失败率每小时统计。", "按学生的类别统计。"]
)
def test_bie_inside_a_word_is_no_negation(text: str) -> None:
    assert not analyse(text).negated


@pytest.mark.parametrize("text", ["计算均值时别用中位数。", "别把退款算进收入。"])
def test_bie_on_its_own_still_says_dont(text: str) -> None:
    assert analyse(text).negated


def test_two_halls_one_name_apart_are_two_halls_not_opposites() -> None:
    a = "守灵厅每场使用时长为两小时，超时按每半小时200元加收。"
    b = "告别厅每场使用时长为两小时，超时按每半小时200元加收。"
    for x, y in ((a, b), (b, a)):
        assert relate(x, y).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Banned profiles are removed from the daily active users count.", False),
        ("Prohibited items are seized at the gate.", False),
        ("Pie charts are banned in board decks.", True),
        ("Overtime prohibited on Sundays.", True),
        ("Cash refunds are forbidden.", True),
        ("Managers prohibit overtime.", True),
    ],
)
def test_banned_before_a_noun_names_it_and_after_a_verb_forbids(text: str, negated: bool) -> None:
    assert analyse(text).negated is negated


def test_banned_profiles_against_reported_profiles_are_two_populations() -> None:
    a = "Banned profiles are removed from the daily active users count."
    b = "Reported profiles are removed from the daily active users count."
    for x, y in ((a, b), (b, a)):
        assert relate(x, y).kind is Relation.RELATED


@pytest.mark.parametrize(
    ("text", "kept"), [("周六周日的场次", "周六周日"), ("周六日营业", "周六日")]
)
def test_a_weekday_before_another_stays_a_day_name(text: str, kept: str) -> None:
    # Round eleven read 周六周日 as 周6周日 (a numeral before 周); two day names are the weekend.
    from jupyter_memory.core.knowledge.identity_values import spell_numbers

    assert kept in spell_numbers(text)
    assert analyse(text).slot("number") == frozenset()


def test_a_count_of_weeks_or_days_is_still_a_number() -> None:
    from jupyter_memory.core.knowledge.identity_values import spell_numbers

    assert spell_numbers("每周三次") == "每周3次"


def test_an_age_in_years_is_no_duration() -> None:
    # "below 18 years old" is "under 18", not 216 months.
    a = "The enrolment form of a learner below 18 years old is signed by a parent."
    b = "Learners under 18 need a parent's signature on the enrolment form."
    assert analyse(a).slot("number") == analyse(b).slot("number") == {"18"}
    assert relate(a, b).kind is Relation.SAME
    assert analyse("Contracts run 2 years.").slot("number") == {"24"}  # a duration still is


def test_a_verb_of_price_is_no_cost_metric() -> None:
    # "costs $180" prices something; "cost per acquisition", "cloud costs are …" name the metric.
    for text in ("A basic individual return costs $180 to prepare.",
                 "Every extra hint costs them 2 minutes.",
                 "A visit cancelled 12 hours ahead costs the customer nothing."):  # fmt: skip
        assert "cost" not in analyse(text).slot("metric"), text
    for text in ("Cost per acquisition excludes refunds.", "Cloud costs are amortized."):
        assert "cost" in analyse(text).slot("metric"), text


@pytest.mark.parametrize(
    ("new", "known"),
    [
        ("特展参观人数取闸机核销数据，售票数不作为依据。", "特展参观人数以闸机核销为准，不以售票数为准。"),
        ("统计充电量时采用桩端电表数据，车端数据不作依据。", "充电量以桩端电表为准，不以车端数据为准。"),
    ],
)  # fmt: skip
def test_what_a_rule_is_not_based_on_is_a_contrast_either_way_it_is_written(
    new: str, known: str
) -> None:
    assert analyse(new).alternative and not analyse(new).negated
    for a, b in ((new, known), (known, new)):
        assert relate(a, b).kind is Relation.SAME


def test_a_refused_basis_against_its_opposite_is_still_the_opposite() -> None:
    a = "特展参观人数取闸机核销数据，售票数不作为依据。"
    b = "特展参观人数以售票数为准，闸机核销数据不作为依据。"
    assert relate(a, b).kind is Relation.CONTRADICTS


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("堆场利用率每日08:00按北京时间取数。", {"08:00"}),  # after a Chinese character
        ("22:00—6:00上门开锁的，需加收100元夜间服务费。", {"22:00", "06:00"}),  # before one
        ("Daily bed occupancy comes from the 12 a.m. census.", {"00:00"}),  # a.m., midnight
        ("A discharge before 11 a.m. counts toward the target.", {"11:00"}),
        ("Refresh at 12pm.", {"12:00"}),
    ],
)  # fmt: skip
def test_a_clock_time_is_read_wherever_it_is_written(text: str, time: set[str]) -> None:
    assert analyse(text).slot("time") == time
    assert "table" not in analyse(text).slots  # "a.m" is no identifier


def test_beijing_time_is_a_zone_not_a_place() -> None:
    a, b = "每天早上8点（UTC+8）提取堆场利用率数据。", "堆场利用率每日08:00按北京时间取数。"
    assert analyse(b).slot("zone") == {"beijing"} and not analyse(b).slot("place")
    x, y = analyse(a), analyse(b)
    assert (x.slot("zone"), x.slot("time")) == (y.slot("zone"), y.slot("time"))
    assert relate(a, b).slot not in ("zone", "time", "place", "number")
    assert analyse("北京地区的收入").slot("place") == {"北京"}


def test_us_with_dots_is_the_place() -> None:
    assert analyse("Domestic = U.S. + Canada.").slot("place") == {"us", "canada"}


def test_a_numeral_before_ming_counts_people() -> None:
    a, b = "开保险柜时，必须有两位锁匠一同在场。", "保险柜开启须由两名锁匠同时在场。"
    assert analyse(a).slot("number") == analyse(b).slot("number") == {"2"}
    assert relate(a, b).slot != "number"
    assert (
        relate("每场婚礼配备三名执行助理。", "每场婚礼配备两名执行助理。").kind is Relation.UPDATE
    )
