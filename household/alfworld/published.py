"""Published success rates on ALFWorld's 134 unseen games (valid_unseen), as ../shared/alfworld/README.md gives them
with their sources: the rows our own runs on those games are shown beside (docs/results.md and the report).

None is checked against its paper here (`checked`: False; this machine reaches no paper): GiGPO's Table 1 rows (arXiv
2505.10978) are as the data README summarises them, and every page that shows them says "not checked here"."""
from __future__ import annotations

from typing import NamedTuple


class Published(NamedTuple):
    agent: str
    model: str
    sr: float
    source: str
    checked: bool = False  # read against the paper itself (none is: module docstring)


GIGPO = "GiGPO (arXiv 2505.10978), Table 1"
PUBLISHED: tuple[Published, ...] = (
    Published("prompted", "Qwen2.5-1.5B-Instruct", 0.041, GIGPO),
    Published("ReAct", "Qwen2.5-1.5B-Instruct", 0.128, GIGPO),
    Published("Reflexion", "Qwen2.5-1.5B-Instruct", 0.218, GIGPO),
    Published("prompted", "Qwen2.5-7B-Instruct", 0.148, GIGPO),
    Published("ReAct", "Qwen2.5-7B-Instruct", 0.312, GIGPO),
    Published("Reflexion", "Qwen2.5-7B-Instruct", 0.427, GIGPO),
    Published("GiGPO (RL fine-tuning)", "Qwen2.5-1.5B-Instruct", 0.867, GIGPO),
    Published("prompted", "Llama-2-7B-Chat", 0.0, "ETO (arXiv 2403.02502)"),
    Published("ReAct, best of 6 prompts", "GPT-3 (text-davinci-002)", 0.71, "ReAct (Yao et al., ICLR 2023)"),
)
# The published row at our model's size that our ReAct is checked against.
REACT_AT_OUR_SIZE = next(p for p in PUBLISHED if p.agent == "ReAct" and p.model == "Qwen2.5-1.5B-Instruct")
