"""Reference solution: NVT-301-201 Table 14.2.1 (change from baseline in SBP at Week 12).

Usage: python solve.py TASK_FOLDER OUTPUT_DIR
mITT per SAP 9.1: dosed, baseline present, site not excluded in site_status.xlsx (site 104, despite the
request saying all six sites are in). BOCF for missing Week 12. Writes t_14_2_1_sbp.csv and
primary_endpoint_summary.md.
"""

import math
import sys
from pathlib import Path

import pandas as pd


def main(task_folder: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    adsl = pd.read_csv(task_folder / "adsl_nvt301.csv")
    sites = pd.read_excel(task_folder / "site_status.xlsx", sheet_name="Sites")
    excluded = sites[sites["Efficacy Analyses"].str.strip().str.lower() == "excluded"]
    excl_ids = set(excluded["SITEID"].astype(int))

    not_dosed = adsl["TRTSDT"].isna()
    no_bl = adsl["SBP_BL"].isna()
    at_excl = adsl["SITEID"].isin(excl_ids)
    mitt = adsl[~not_dosed & ~no_bl & ~at_excl].copy()
    bocf = mitt["SBP_W12"].isna()
    mitt["CHG"] = (mitt["SBP_W12"] - mitt["SBP_BL"]).where(~bocf, 0.0)

    stats = {}
    for arm in ["Placebo", "NVT-301 10 mg"]:
        x = mitt.loc[mitt["ARM"] == arm, "CHG"]
        stats[arm] = (len(x), float(x.mean()), float(x.std(ddof=1)))
    table = pd.DataFrame(
        [[a, n, round(m, 1), round(s, 2)] for a, (n, m, s) in stats.items()],
        columns=["ARM", "N", "MEAN_CHG", "SD_CHG"],
    )
    table.to_csv(out / "t_14_2_1_sbp.csv", index=False)

    (n0, m0, s0), (n1, m1, s1) = stats["Placebo"], stats["NVT-301 10 mg"]
    diff = m1 - m0
    se = math.sqrt(s0**2 / n0 + s1**2 / n1)
    lo, hi = diff - 1.96 * se, diff + 1.96 * se
    site_list = ", ".join(str(s) for s in sorted(excl_ids))
    reasons = "; ".join(str(r) for r in excluded["Note"])
    note = f"""# NVT-301-201 Table 14.2.1 - cover note

Analysis population N: {n0 + n1}
Excluded sites: {site_list}
Exclusion reason: {reasons}
Treatment difference: {diff:.2f} mmHg
95% CI: {lo:.2f} to {hi:.2f}

**Population:** mITT per SAP 9.1, total N = {n0 + n1} (Placebo {n0}, NVT-301 10 mg {n1}).

**Treatment difference (NVT-301 10 mg minus Placebo):** {diff:.2f} mmHg, 95% CI {lo:.2f} to {hi:.2f}
(normal approximation, SAP 9.3).

## Population and data-handling decisions

- Site {site_list} excluded from all efficacy populations: the site status log marks it excluded ({reasons}).
  This contradicts the request's statement that all six sites are in the analysis; I followed the SAP and the
  log. {int(at_excl.sum())} randomized subjects at the site are removed.
- {int((not_dosed & ~at_excl).sum())} randomized subjects never dosed (blank TRTSDT) excluded.
- {int((no_bl & ~not_dosed & ~at_excl).sum())} subject(s) with missing baseline SBP excluded.
- {int(bocf.sum())} subjects with missing Week 12 SBP imputed by BOCF (change = 0).
- Descriptive summary only, as SAP 9.3 requires for the DMC.
"""
    (out / "primary_endpoint_summary.md").write_text(note, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
