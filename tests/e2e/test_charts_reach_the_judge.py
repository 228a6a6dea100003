"""End to end: an agent draws charts in the sandbox with the python tool (matplotlib, headless), puts them in a PNG,
a docx and a pptx, submits, and the LLM judge (a scripted server on loopback, reached over HTTP) receives each
chart as an image part on the visual rubric and none on the other."""

from __future__ import annotations

import base64
import json

from jobenv.env import JobEnv
from tests.judge.conftest import make_task, rubric_of, verdict
from tests.support.openai_server import OpenAIServer

DRAW = """
import matplotlib.pyplot as plt, docx, pptx
from pptx.util import Inches

def chart(path, values):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.hist(values, bins=5)
    ax.set_xlabel('claim size'); ax.set_ylabel('count')
    fig.savefig(path); plt.close(fig)

chart('output/histogram.png', [1, 2, 2, 3, 3, 3, 4])
chart('/tmp/doc_chart.png', [5, 5, 6, 7, 9])
chart('/tmp/deck_chart.png', [10, 11, 11, 12, 15, 15])
d = docx.Document(); d.add_paragraph('Claim sizes'); d.add_picture('/tmp/doc_chart.png'); d.save('output/report.docx')
deck = pptx.Presentation(); slide = deck.slides.add_slide(deck.slide_layouts[6])
slide.shapes.add_picture('/tmp/deck_chart.png', Inches(1), Inches(1)); deck.save('output/deck.pptx')
sorted(__import__('os').listdir('output'))
"""


def test_charts_made_in_the_sandbox_reach_the_llm_judge_as_images(tmp_path):
    task = make_task(tmp_path, [
        {"rubric": "Includes a histogram of claim sizes", "weight": 5, "criterion": ["axes labelled"]},
        {"rubric": "States the total", "weight": 5, "criterion": ["total given"]},
    ])
    with OpenAIServer(lambda req: json.dumps(verdict(1))) as srv:
        env = JobEnv([task], judge="llm", tools=("python",),
                     judge_options={"base_url": srv.base_url, "api_key": "k", "model": "judge-m", "cache_dir": False,
                                    "backoff_s": 0.01})
        try:
            env.reset()
            obs, _r, _t, _tr, info = env.step({"name": "python", "arguments": {"code": DRAW, "timeout": 120}})
            assert info["ok"] and "deck.pptx" in obs and "histogram.png" in obs and "report.docx" in obs, obs
            _obs, reward, terminated, _tr, info = env.step({"name": "submit", "arguments": {}})
        finally:
            env.close()
    assert terminated and info["status"] == "ok" and reward == 1.0
    visual = next(r for r in srv.requests if rubric_of(r).startswith("Includes"))
    parts = visual["messages"][-1]["content"]
    images = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(images) == 3  # the PNG, the docx's picture and the slide's picture, all distinct charts
    for url in images:
        head, data = url.split(",", 1)
        assert head == "data:image/png;base64," [:-1] and base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    listing = "\n".join(p.get("text", "") for p in parts if p["type"] == "text")
    order = [listing.index(name) for name in ("histogram.png", "report.docx:word/media/", "deck.pptx:ppt/media/")]
    assert order == sorted(order)  # standalone, docx, then pptx pictures
    plain = next(r for r in srv.requests if rubric_of(r) == "States the total")
    assert isinstance(plain["messages"][-1]["content"], str)  # a non-visual rubric gets no images
