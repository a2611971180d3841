"""Agreement between labellers (docs/agreement.md): ``sources.from_qrels`` or
``sources.from_store`` reads the grades, ``report.agreement_report`` gives `goldset agreement`'s
figures with intervals over queries; ``coefficients`` holds the kappas and alphas alone."""
