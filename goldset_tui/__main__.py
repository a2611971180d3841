from goldset_tui.cli import main

raise SystemExit(main())
