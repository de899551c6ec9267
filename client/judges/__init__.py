"""Answer judges: the deterministic rules judge, the paper's LLM judge, and their agreement."""

from .agreement import agreement, cohen_kappa, judge_agreement
from .llm import LLMJudge, LLMVerdict, PROMPT_SHA256
from .rules import RuleVerdict, extract_final_date, extract_yes_no, judge_answer

__all__ = ["judge_answer", "extract_final_date", "extract_yes_no", "RuleVerdict", "LLMJudge", "LLMVerdict",
           "PROMPT_SHA256", "cohen_kappa", "agreement", "judge_agreement"]
