"""The `tessera` command (also `python3 -m tessera`):

    tessera run FOLDER [--parameters FILE] [--set KEY=VALUE]... [--threads N] [--quiet]
                       [--output-dir DIR]
    tessera info
    tessera --help | --version

Exit codes: 0 success; 2 usage or input errors (missing folder, no parameters
file, bad JSON, a mistyped setting: anything found before the time loop
starts), printed as one message without a traceback unless --debug; 1 when the
run fails (a check process finds a wrong result, or an error or crash during
the time loop).
"""
import argparse
import os
import sys
import traceback
import warnings

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def _Parser():
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="tessera",
        description="Tessera: particles interacting with structures. Runs Kratos/GiD-style project "
                    "folders (.mdpa meshes with JSON parameters) and writes ParaView/GiD output.")
    parser.add_argument("--version", action="version", version=f"tessera {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks of errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run", help="run a project folder",
        description="Runs the analysis of a project folder, with the folder as working directory "
                    "(Kratos decks name files relative to it), so output lands beside the inputs.")
    run.add_argument("folder", metavar="FOLDER", help="the project folder")
    run.add_argument("--parameters", metavar="FILE",
                     help="the parameters file (default: ProjectParameters.json, else "
                          "ProjectParametersDEM.json, else the single *Parameters*.json)")
    run.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="settings",
                     help="change a setting of the parameters file for this run, without editing "
                          "it (repeatable): KEY is a top-level key or a dotted path "
                          "(solver_settings.strategy); VALUE is JSON, or else a string "
                          "(e.g. --set FinalTime=0.1 --set HertzDampingMap=thornton_fit)")
    run.add_argument("--threads", metavar="N", type=int, help="OpenMP threads (default: all cores)")
    run.add_argument("--quiet", action="store_true", help="no progress bar or summary line")
    run.add_argument("--output-dir", metavar="DIR",
                     help="write the output processes' files under DIR instead of FOLDER")
    run.add_argument("--restart", metavar="FILE",
                     help="continue the run saved in the checkpoint FILE (written by this deck's "
                          "restart_options, or on SIGTERM/SIGINT); the deck may change only its end "
                          "time and output settings")
    # SUPPRESS keeps `tessera --debug run ...` from being reset by this default
    run.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                     help="show Python tracebacks of errors")

    commands.add_parser("info", help="version, applications and registered components",
                        description="Shows the version, the applications this build has and the "
                                    "names input files may use.")
    return parser


# The rank of a distributed run ("rank R" in messages), None in a serial one.
_rank_label = None


def _Error(message, label="error"):
    where = f" on rank {_rank_label}" if _rank_label is not None else ""
    print(f"tessera: {label}{where}: {message}", file=sys.stderr, flush=True)


def _RunCommunicator():
    """The communicator of a process started by mpirun in a build with MPI,
    else None (MPI is not initialised for serial runs)."""
    import tessera

    if tessera.MPIBuilt() and tessera.LaunchedByMPI():
        return tessera.DefaultCommunicator()
    return None


def SetThreads(count):
    """OpenMP threads for this process (and, through OMP_NUM_THREADS, for the
    processes it starts)."""
    if count < 1:
        raise ValueError(f"--threads must be at least 1, not {count}")
    os.environ["OMP_NUM_THREADS"] = str(count)
    import tessera

    tessera.SetParallelThreads(count)


def _Run(args):
    """Runs the project; in a distributed run (mpirun) progress is reported by
    rank 0 only, and a failure on any rank prints its message with the rank and
    ends all ranks (MPI_Abort), which would otherwise wait for it forever."""
    global _rank_label
    communicator = _RunCommunicator()
    if communicator is None:
        return _RunProject(args, quiet=args.quiet)
    _rank_label = communicator.Rank() if communicator.Size() > 1 else None
    # What the stages print (echo, summaries) comes once, from rank 0; errors
    # go to stderr, which every rank keeps.
    stdout = sys.stdout
    if communicator.Rank() != 0:
        sys.stdout = open(os.devnull, "w")
    from .checkpoint import SignalStop

    agreed_stop = False
    try:
        with warnings.catch_warnings():
            # The deck's warnings likewise: every rank reads the same deck.
            if communicator.Rank() != 0:
                warnings.simplefilter("ignore")
            code = _RunProject(args, quiet=args.quiet or communicator.Rank() != 0)
    except SignalStop as stop:
        # Every rank stops at the same step on a signal (the ranks agree on
        # it and each wrote its checkpoint): an orderly end, 128 + signal.
        code, agreed_stop = stop.code, True
    except BaseException as error:  # KeyboardInterrupt, SystemExit: stop the others too
        _Error(f"{type(error).__name__}: {error}", "stopped")
        code = EXIT_FAILURE
    finally:
        if sys.stdout is not stdout:
            sys.stdout.close()
            sys.stdout = stdout
    if code != EXIT_OK and communicator.Size() > 1 and not agreed_stop:
        communicator.Abort(code)
    return code


def _RunProject(args, quiet):
    from . import project as project_module
    from .processes import CheckFailure
    from .progress import CreateReporter
    import tessera

    debug = args.debug
    setup_errors = (tessera.Error, ValueError, TypeError, OSError)
    try:
        if args.threads is not None:
            SetThreads(args.threads)
        project = project_module.Project(args.folder, args.parameters, args.output_dir,
                                         args.settings)
        reporter = CreateReporter(sys.stderr, quiet=quiet)
        restart = os.path.abspath(args.restart) if args.restart else None
        with project_module.WorkingDirectory(project.folder):
            stage = project.CreateStage(reporter)
            if restart:
                if not hasattr(stage, "RestartFrom"):
                    raise tessera.Error(f"{type(stage).__name__} cannot continue from a checkpoint "
                                        "(--restart)")
                stage.RestartFrom(restart)
            stage.Initialize()
    except CheckFailure as failure:
        _Error(str(failure), "check failed")
        return EXIT_FAILURE
    except setup_errors as error:
        if debug:
            traceback.print_exc()
        _Error(str(error))
        return EXIT_USAGE
    except Exception:  # a crash: the traceback is what a bug report needs
        traceback.print_exc()
        _Error("crashed while setting up the analysis (traceback above)")
        return EXIT_FAILURE

    try:
        with project_module.WorkingDirectory(project.folder):
            stage.RunSolutionLoop()
            stage.Finalize()
    except CheckFailure as failure:
        if debug:
            traceback.print_exc()
        _Error(str(failure), "check failed")
        return EXIT_FAILURE
    except tessera.Error as error:
        if debug:
            traceback.print_exc()
        _Error(f"{error} (at time {getattr(stage, 'time', float('nan')):.9g})")
        return EXIT_FAILURE
    except Exception:
        traceback.print_exc()
        _Error("crashed during the time loop (traceback above)")
        return EXIT_FAILURE
    return EXIT_OK


def _Info():
    import importlib
    import pkgutil

    import tessera

    print(f"tessera {tessera.__version__}")
    print(f"python package: {os.path.dirname(tessera.__file__)}")
    # Applications register their components when imported.
    status = {}
    own = {"processes", "output"}
    names = sorted({m.name for m in pkgutil.iter_modules(tessera.__path__) if m.ispkg} - own)
    for name in sorted(set(names) | {"dem", "structural", "coupling"}):
        try:
            importlib.import_module(f"tessera.{name}")
            status[name] = "available"
        except ModuleNotFoundError as error:
            status[name] = "not built" if error.name == f"tessera.{name}" else f"broken ({error})"
        except Exception as error:  # an application that fails to load is worth showing
            status[name] = f"broken ({type(error).__name__}: {error})"
    print("applications:")
    for name, state in status.items():
        print(f"  {name:12s} {state}")
    print(f"registered by: {', '.join(tessera.Registry.Applications())}")
    sections = (("elements", tessera.Registry.ElementNames()),
                ("conditions", tessera.Registry.ConditionNames()),
                ("constitutive laws", tessera.Registry.ConstitutiveLawNames()),
                ("C++ processes", tessera.Registry.ProcessNames()))
    for title, entries in sections:
        print(f"{title} ({len(entries)}):")
        print("  " + (", ".join(entries) if entries else "(none)"))
    from . import processes

    python_processes = sorted(m.name for m in pkgutil.iter_modules(processes.__path__)
                              if m.name.endswith("_process"))
    print(f"python processes ({len(python_processes)}):")
    print("  " + ", ".join(python_processes))
    return EXIT_OK


def main(argv=None):
    parser = _Parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # argparse: --help/--version (0), usage errors (2)
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # A stage's warnings (time step, unused options) read as the command's
    # own, without Python's source line under them.
    python_format = warnings.formatwarning
    warnings.formatwarning = _FormatWarning
    try:
        if args.command == "run":
            return _Run(args)
        return _Info()
    except KeyboardInterrupt:
        print("\ntessera: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = python_format


def _FormatWarning(message, category, filename, lineno, line=None):
    return f"tessera: warning: {message}\n"


if __name__ == "__main__":
    sys.exit(main())
