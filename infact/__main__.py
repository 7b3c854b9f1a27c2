from infact.cli.main import main

raise SystemExit(main())
