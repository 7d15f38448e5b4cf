"""A corpus shaped like real notes, for the index maintenance benchmark.

English notes draw words from a fixed list of common English and analytics
words by Zipf's law (rank r with weight 1/r); one note in five is Chinese,
drawn from a few hundred common 2-character words. Each note is 1–4 sentences.
Seeded, so every run writes the same corpus.
"""

from __future__ import annotations

import itertools
import random

_ENGLISH_WORDS = """
the of and to in is that for it as with was on be by this are from at or have an
not which but they all we one you can more has their will data were also there
been would when into new other only some time its out use first than any these
two may after most about our over such what year how where users report revenue
sales customer order refund channel month week daily total count number rate value
table query join filter group metric dashboard model feature column row null missing
duplicate source target region store product price discount cost margin profit
budget forecast quarter growth retention churn active session event click page view
campaign conversion funnel cohort segment test control variant lift baseline sample
mean median average sum ratio share trend spike drop outlier anomaly check fix bug
issue error warning cause because before since until while during then again still
only always never often usually sometimes later earlier today yesterday tomorrow
should must need needs using used uses make makes made keep keeps kept note notes
remember rule rules info team person analyst review approved pending export import
file files folder path notebook cell kernel python pandas sql spark schema version
update updated delete deleted create created merge merged split split join joined
date dates timezone utc local hour minute day days weeks months years fiscal calendar
invoice payment payments account accounts balance ledger entry entries audit log logs
inventory stock supplier shipping delivery return returns chargeback chargebacks fraud
risk score scores label labels training validation holdout leak leakage bias weight
weights sampling random seed stable unstable slow fast cache cached memory disk
network server client request response latency timeout retry batch stream window
lag lead rank ranking top bottom first last previous next current old stale fresh
exclude excludes excluded include includes included only except unless without with
gross net tax taxes fee fees currency exchange converted dollars euros yuan cents
mobile web app desktop android ios browser device devices country countries city
cities market markets brand brands category categories item items sku skus bundle
"""
ENGLISH = _ENGLISH_WORDS.split()

_CHINESE_WORDS = (
    "收入 退款 订单 用户 渠道 销售 利润 成本 客户 活跃 留存 转化 增长 周期 季度 预算 指标 口径 统计 数据"
    " 模型 异常 报表 发票 库存 物流 价格 折扣 会员 积分 地区 城市 门店 商品 类目 品牌 广告 投放 点击 曝光"
    " 风险 审计 分析 结果 问题 原因 需要 注意 检查 修复 更新 删除 创建 合并 拆分 日期 时间 时区 月份 年度"
    " 财务 账户 余额 支付 金额 税费 汇率 货币 手机 网页 设备 国家 市场 分类 样本 权重 随机 缓存 内存 磁盘"
    " 网络 请求 响应 延迟 超时 重试 批量 排名 当前 过期 包含 排除 毛利 净利 费用 渠道 新客 老客 复购 流失"
    " 漏斗 分群 实验 对照 基线 均值 中位 总和 比例 趋势 峰值 下降 离群 规则 团队 评审 批准 导出 导入 文件"
    " 路径 笔记 代码 字段 表格 查询 连接 过滤 分组 看板 特征 缺失 重复 来源 目标 区域 产品 营收 毛额 口碑"
    " 评论 评分 标签 训练 验证 泄漏 偏差 稳定 快速 慢速 服务 客服 工单 投诉 满意 调研 问卷 供应 配送 退货"
    " 拒付 欺诈 运营 策略 活动 优惠 补贴 红包 优惠 定价 成交 下单 支付 取消 关闭 完成 失败 成功 明细 汇总"
)
CHINESE = _CHINESE_WORDS.split()

_EN_WEIGHTS = list(itertools.accumulate(1.0 / r for r in range(1, len(ENGLISH) + 1)))
_ZH_WEIGHTS = list(itertools.accumulate(1.0 / r for r in range(1, len(CHINESE) + 1)))


def _english_note(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 4)):
        words = rng.choices(ENGLISH, cum_weights=_EN_WEIGHTS, k=rng.randint(5, 16))
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def _chinese_note(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 4)):
        words = rng.choices(CHINESE, cum_weights=_ZH_WEIGHTS, k=rng.randint(4, 12))
        sentences.append("".join(words) + "。")
    return "".join(sentences)


def make_notes(n: int, seed: int = 16) -> list[dict[str, object]]:
    """``n`` notes as ``import_jsonl`` rows: text, title, tags."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for _ in range(n):
        text = _chinese_note(rng) if rng.random() < 0.2 else _english_note(rng)
        title = text.split("。")[0][:24] if not text.isascii() else " ".join(text.split()[:6])
        rows.append({"text": text, "title": title, "tags": [f"t{rng.randint(0, 40)}"]})
    return rows
