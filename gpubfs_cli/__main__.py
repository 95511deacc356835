from gpubfs_cli.cli import main

main()
