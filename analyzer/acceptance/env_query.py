# The fixed query that `mpsaudit env` runs in each interpreter it is asked
# about. It is compiled into the mpsaudit binary (env_query_script.cpp is
# generated from this file), so an installed tool needs no data file.
#
# Rules for this script:
# - import torch and the standard library only; never the repository's code
#   (mpsaudit runs it with `-c` from an empty temporary directory, and it
#   drops '' and the working directory from sys.path before importing);
# - never fail: every fact is gathered inside its own try, and a failure
#   becomes an "error" string in the record instead of a traceback;
# - write exactly one JSON object to stdout between the BEGIN/END marker
#   lines, so that anything torch or a sitecustomize prints is ignored;
# - stay valid Python 3.5 syntax (no f-strings), so an old interpreter gets
#   a record rather than a SyntaxError.
import json
import os
import platform
import sys

BEGIN = "MPSAUDIT-ENV-BEGIN"
END = "MPSAUDIT-ENV-END"


def drop_working_directory_from_path():
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]


def describe(error):
    return "%s: %s" % (type(error).__name__, error)


def darwin_sysctl(name, integer):
    # sysctlbyname in this process (not a `sysctl` subprocess): under
    # Rosetta, sysctl.proc_translated describes the process that asks.
    import ctypes
    import ctypes.util
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    encoded = name.encode("ascii")
    if integer:
        value = ctypes.c_int(0)
        size = ctypes.c_size_t(ctypes.sizeof(value))
        if libc.sysctlbyname(encoded, ctypes.byref(value), ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
            return None
        return value.value
    size = ctypes.c_size_t(0)
    if libc.sysctlbyname(encoded, None, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        return None
    buffer = ctypes.create_string_buffer(size.value + 1)
    if libc.sysctlbyname(encoded, buffer, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        return None
    return buffer.value.decode("utf-8", "replace")


def python_facts():
    prefix = getattr(sys, "prefix", "")
    base_prefix = getattr(sys, "base_prefix", prefix)
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "prefix": prefix,
        "virtual_environment": prefix != base_prefix or "CONDA_PREFIX" in os.environ,
        "user_site_enabled": bool(getattr(sys.flags, "no_user_site", 0) == 0),
    }


def platform_facts():
    facts = {"system": platform.system(), "machine": platform.machine(), "errors": []}
    native = facts["machine"]
    if facts["system"] == "Darwin":
        facts["os_version"] = platform.mac_ver()[0]
        try:
            facts["chip"] = darwin_sysctl("machdep.cpu.brand_string", False)
            translated = darwin_sysctl("sysctl.proc_translated", True)
            # The call fails on Intel Macs, where no translation exists.
            facts["rosetta"] = translated == 1
            if darwin_sysctl("hw.optional.arm64", True) == 1:
                native = "arm64"
        except Exception as error:  # ctypes missing or libc without sysctlbyname
            facts["errors"].append("sysctl: " + describe(error))
    else:
        facts["os_version"] = platform.release()
    facts["native_machine"] = native
    return facts


def torch_facts():
    try:
        import torch
    except ImportError as error:
        return {"importable": False, "error": describe(error), "missing": True}
    except BaseException as error:  # a broken build: missing shared library, ABI error
        return {"importable": False, "error": describe(error), "missing": False}
    facts = {"importable": True, "errors": []}
    facts["version"] = str(getattr(torch, "__version__", ""))
    facts["location"] = os.path.dirname(getattr(torch, "__file__", "") or "")
    version_module = getattr(torch, "version", None)
    facts["cuda_version"] = getattr(version_module, "cuda", None)
    facts["hip_version"] = getattr(version_module, "hip", None)
    facts["git_version"] = getattr(version_module, "git_version", None)
    try:
        facts["cuda_available"] = bool(torch.cuda.is_available())
        facts["cuda_device_count"] = int(torch.cuda.device_count()) if facts["cuda_available"] else 0
    except Exception as error:
        facts["errors"].append("torch.cuda: " + describe(error))
    mps = getattr(getattr(torch, "backends", None), "mps", None)
    if mps is None:
        # torch.backends.mps appeared in 1.12: older builds have no MPS at all.
        facts["mps_built"] = False
        facts["mps_available"] = False
        facts["errors"].append("torch.backends.mps does not exist in this torch (added in 1.12)")
    else:
        for name in ("is_built", "is_available"):
            key = "mps_built" if name == "is_built" else "mps_available"
            try:
                facts[key] = bool(getattr(mps, name)())
            except Exception as error:
                facts[key] = None
                facts["errors"].append("torch.backends.mps.%s(): %s" % (name, describe(error)))
    return facts


def mps_variables():
    return dict((name, value) for name, value in os.environ.items()
                if name == "PYTORCH_ENABLE_MPS_FALLBACK" or name.startswith("PYTORCH_MPS_")
                or name.startswith("PYTORCH_DEBUG_MPS_"))


def installed_packages():
    try:
        from importlib import metadata
    except ImportError:  # Python before 3.8
        return {}, "importlib.metadata is not available before Python 3.8"
    packages = {}
    for distribution in metadata.distributions():
        try:
            name = distribution.metadata["Name"]
        except Exception:
            name = None
        if name and name not in packages:  # first on sys.path wins, as for imports
            packages[name] = distribution.version
    return packages, None


def main():
    drop_working_directory_from_path()
    record = {"query_version": 1}
    for key, gather in (("python", python_facts), ("platform", platform_facts), ("torch", torch_facts)):
        try:
            record[key] = gather()
        except Exception as error:
            record[key] = {"errors": [describe(error)]}
    record["variables"] = mps_variables()
    try:
        record["packages"], problem = installed_packages()
        if problem:
            record["packages_error"] = problem
    except Exception as error:
        record["packages"] = {}
        record["packages_error"] = describe(error)
    sys.stdout.write("\n" + BEGIN + "\n" + json.dumps(record, sort_keys=True) + "\n" + END + "\n")
    sys.stdout.flush()


main()
