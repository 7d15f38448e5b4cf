"""A corpus shaped like real notes, for recall_bench.py (issue 16).

English words follow Zipf's law (frequency ∝ 1 / rank**s) over a vocabulary of
real English words: function words first, as in any English text (they are
stopwords to the index, but they make up half of what people write), then
content words, each also in its plural / past / -ing forms so stems collect
several surface forms. 20% of the notes are Chinese, drawn by the same law from
a few hundred common 2-character words. A note is 1–4 sentences.

Queries are what a person types: 1–3 content words drawn with the same
frequency law (so the common words that match thousands of notes are asked
often), sometimes with a function word among them, and Chinese 2-character
words drawn the same way.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass


def _words(text: str) -> list[str]:
    return text.split()


# Function words in their usual order of frequency in English text.
FUNCTION_WORDS = _words("""
the of and to a in is it that for was on with as he be at by this had not are
but from or have an they which you were her all she there would their we him
been has when who will more no if out so said what up its about into than them
can only other new some could these two may then do first any my now such like
our over me even most made after also did many before must through back years
where much your way well down should because each just those how too very
""")

CONTENT_WORDS = _words("""
revenue refund order customer channel sale profit cost client active retention
conversion growth cycle quarter budget metric definition statistic data model
anomaly report invoice inventory logistics price discount member point region
city store product category brand advert campaign click impression risk audit
account payment transfer balance ledger fiscal annual monthly weekly daily
forecast target baseline variance trend season holiday promotion coupon cart
checkout shipment delivery return exchange warranty supplier vendor contract
agreement renewal churn signup login session visit page view funnel cohort
segment persona survey feedback rating review complaint ticket support agent
manager team project milestone deadline sprint release deploy server database
query table column index schema join filter aggregate pipeline notebook kernel
cell plot chart dashboard figure axis label legend color scale sample median
mean average sum count ratio percent share rate growth decline increase
decrease spike drop outlier missing duplicate null value field record row
file folder path backup archive version branch merge commit issue bug fix
patch test check validate verify confirm approve reject submit upload download
export import convert parse clean transform normalize encode decode compress
train predict evaluate score accuracy precision recall error loss feature
weight parameter threshold cluster classify regression tree forest network
layer epoch batch gradient optimizer memory cache disk storage network latency
throughput bandwidth request response timeout retry queue worker thread
process task job schedule cron trigger event alert notification email message
chat call meeting agenda minutes note summary decision action owner stakeholder
partner investor board director engineer analyst scientist designer writer
teacher student doctor nurse patient hospital clinic school university class
course lesson homework exam grade paper thesis research study experiment
result finding evidence source reference citation journal article book chapter
story novel poem song music movie film show episode game sport team match
player coach season league championship trophy medal race marathon bike
hike trail mountain river lake ocean beach island forest garden park city
town village street road bridge train bus car flight airport hotel trip travel
vacation holiday weekend morning evening night week month year birthday
wedding party dinner lunch breakfast coffee tea cake bread pizza pasta salad
soup fruit apple banana orange grape vegetable tomato potato carrot onion
garlic chicken beef pork fish rice noodle recipe kitchen oven restaurant cafe
family friend mother father sister brother parent child daughter son wife
husband grandma grandpa cousin uncle aunt neighbor colleague boss mentor
dog cat bird horse pet puppy kitten animal plant flower tree grass leaf
house home room bedroom office desk chair window door wall floor roof yard
painting drawing photo camera picture art gallery museum concert theater
dance yoga gym workout exercise run swim walk climb ski surf camp fish
health diet sleep stress anxiety therapy medicine vitamin doctor injury pain
money salary bonus tax rent mortgage loan credit debt saving investment stock
bond fund market economy inflation interest bank insurance pension
language english chinese spanish french german japanese word sentence grammar
code script function class method object variable loop condition argument
library package module dependency install update upgrade configure setting
option flag default environment container cluster cloud region zone instance
security password token permission role policy compliance privacy consent
law court judge lawyer case trial evidence witness contract clause
history culture religion politics election vote government policy tax citizen
news article headline interview podcast video channel stream post comment
like share follow subscribe blog website app phone laptop tablet screen
keyboard mouse battery charger cable printer scanner router
weather rain snow wind storm sun cloud temperature summer winter spring autumn
volunteer charity donation community event festival parade fair market
goal plan idea problem solution question answer reason example detail
change start finish begin end open close build create design write read
learn teach help ask tell show find lose keep give take bring buy sell pay
spend save move stay leave arrive visit meet join invite celebrate enjoy love
hate hope wish try need want like prefer remember forget think believe know
understand explain describe discuss decide choose agree argue compare measure
improve reduce increase grow expand limit support manage lead organize prepare
""")

CHINESE_WORDS = _words("""
收入 退款 订单 用户 渠道 销售 利润 成本 客户 活跃 留存 转化 增长 周期 季度 预算
指标 口径 统计 数据 模型 异常 报表 发票 库存 物流 价格 折扣 会员 积分 地区 城市
门店 商品 类目 品牌 广告 投放 点击 曝光 风险 审计 账户 支付 转账 余额 财务 年度
月度 每周 每日 预测 目标 基线 趋势 季节 假期 促销 优惠 购物 结算 发货 配送 退货
换货 保修 供应 合同 协议 续约 流失 注册 登录 会话 访问 页面 漏斗 分群 问卷 反馈
评分 评价 投诉 工单 客服 经理 团队 项目 里程 截止 发布 部署 服务 数据 查询 表格
字段 索引 管道 笔记 内核 图表 看板 坐标 标签 颜色 样本 均值 总数 比例 比率 下降
上升 重复 缺失 记录 文件 目录 路径 备份 归档 版本 分支 合并 提交 问题 修复 补丁
测试 检查 验证 确认 审批 拒绝 上传 下载 导出 导入 转换 解析 清洗 编码 解码 压缩
训练 评估 准确 精度 误差 损失 特征 权重 参数 阈值 聚类 分类 回归 网络 批次 梯度
内存 缓存 磁盘 存储 延迟 带宽 请求 响应 超时 重试 队列 线程 进程 任务 调度 触发
事件 告警 通知 邮件 消息 会议 议程 纪要 总结 决定 负责 股东 伙伴 董事 工程 分析
科学 设计 老师 学生 医生 护士 病人 医院 学校 大学 课程 作业 考试 论文 研究 实验
结果 发现 证据 来源 引用 期刊 文章 书籍 故事 小说 音乐 电影 节目 比赛 球队 球员
教练 联赛 冠军 奖牌 跑步 登山 河流 湖泊 海洋 海滩 森林 花园 公园 街道 道路 火车
汽车 航班 机场 酒店 旅行 假日 周末 早上 晚上 生日 婚礼 聚会 晚餐 午餐 早餐 咖啡
蛋糕 面包 水果 苹果 香蕉 蔬菜 鸡肉 牛肉 米饭 面条 菜谱 厨房 餐厅 家庭 朋友 母亲
父亲 姐姐 哥哥 孩子 女儿 儿子 妻子 丈夫 邻居 同事 老板 导师 宠物 动物 植物 鲜花
房子 卧室 办公 桌子 椅子 窗户 照片 相机 图片 艺术 画廊 博物 音乐 剧院 舞蹈 瑜伽
健身 锻炼 游泳 散步 健康 饮食 睡眠 压力 焦虑 治疗 药物 维生 受伤 疼痛 工资 奖金
税务 房租 贷款 信用 债务 储蓄 投资 股票 债券 基金 市场 经济 通胀 利息 银行 保险
语言 英语 中文 句子 语法 代码 脚本 函数 方法 对象 变量 循环 条件 模块 依赖 安装
升级 配置 设置 选项 环境 容器 集群 实例 安全 密码 令牌 权限 角色 政策 合规 隐私
""")


def _forms(word: str) -> list[str]:
    """A content word and a few inflected forms (the index stems them together)."""
    if word.endswith("e"):
        return [word, word + "s", word + "d", word[:-1] + "ing"]
    if word.endswith(("s", "x", "sh", "ch")):
        return [word, word + "es", word + "ed", word + "ing"]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return [word, word[:-1] + "ies", word[:-1] + "ied"]
    return [word, word + "s", word + "ed", word + "ing"]


@dataclass(frozen=True)
class ZipfVocab:
    english: list[str]  # function words first, then content words (rank order)
    content_start: int  # index of the first content word in ``english``
    english_cum: list[float]
    content_cum: list[float]
    chinese: list[str]
    chinese_cum: list[float]


def _cumulative(n: int, s: float) -> list[float]:
    return list(itertools.accumulate(1.0 / (r**s) for r in range(1, n + 1)))


def make_vocab(seed: int = 16, s: float = 1.05) -> ZipfVocab:
    rng = random.Random(seed)
    content = list(dict.fromkeys(CONTENT_WORDS))
    rng.shuffle(content)  # which topic is common is chance, not list order
    # A base form is commoner than its inflections: those sit further down
    # the ranks, so a stem still collects several surface forms.
    keyed: list[tuple[int, str]] = []
    for i, word in enumerate(content):
        for j, form in enumerate(_forms(word)):
            keyed.append((i + j * len(content) // 3, form))
    seen: dict[str, None] = dict.fromkeys(FUNCTION_WORDS)
    for _, form in sorted(keyed):
        seen.setdefault(form)
    english = list(seen)
    content_start = len(dict.fromkeys(FUNCTION_WORDS))
    chinese = list(dict.fromkeys(CHINESE_WORDS))
    rng.shuffle(chinese)
    return ZipfVocab(
        english=english,
        content_start=content_start,
        english_cum=_cumulative(len(english), s),
        content_cum=_cumulative(len(english) - content_start, s),
        chinese=chinese,
        chinese_cum=_cumulative(len(chinese), s),
    )


def _draw(rng: random.Random, words: list[str], cum: list[float], offset: int = 0) -> str:
    i = bisect.bisect_left(cum, rng.random() * cum[-1])
    return words[offset + min(i, len(cum) - 1)]


def english_sentence(rng: random.Random, v: ZipfVocab) -> str:
    words = [_draw(rng, v.english, v.english_cum) for _ in range(rng.randint(6, 18))]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice(".......?!")


def chinese_sentence(rng: random.Random, v: ZipfVocab) -> str:
    words = [_draw(rng, v.chinese, v.chinese_cum) for _ in range(rng.randint(4, 10))]
    text = "".join(w + ("，" if rng.random() < 0.2 else "") for w in words)
    return text.rstrip("，") + "。"


def make_corpus(n: int, seed: int = 16) -> list[dict[str, object]]:
    """``n`` notes (20% Chinese), each with a title like the ones people give."""
    v = make_vocab()
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for _ in range(n):
        zh = rng.random() < 0.2
        make = chinese_sentence if zh else english_sentence
        sentences = [make(rng, v) for _ in range(rng.randint(1, 4))]
        sep = "" if zh else " "
        text = sep.join(sentences)
        # A title is a few words of the note's own subject.
        if zh:
            title = "".join(_draw(rng, v.chinese, v.chinese_cum) for _ in range(rng.randint(1, 3)))
        else:
            title = " ".join(
                _draw(rng, v.english, v.content_cum, v.content_start)
                for _ in range(rng.randint(2, 5))
            ).capitalize()
        rows.append({"text": text, "title": title, "tags": [f"t{rng.randint(0, 40)}"]})
    return rows


def english_queries(n: int, seed: int) -> list[str]:
    """1–3 content words by frequency; one in five also has a function word."""
    v = make_vocab()
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        words = [
            _draw(rng, v.english, v.content_cum, v.content_start) for _ in range(rng.randint(1, 3))
        ]
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words) + 1), _draw(rng, v.english, v.english_cum[:60]))
        out.append(" ".join(words))
    return out


def chinese_queries(n: int, seed: int) -> list[str]:
    v = make_vocab()
    rng = random.Random(seed)
    return [_draw(rng, v.chinese, v.chinese_cum) for _ in range(n)]
