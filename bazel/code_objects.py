#!/usr/bin/env python3
"""Lists the AMD GPU code objects a HIP fat binary holds, straight from the ELF file.

clang puts each translation unit's device code into the host object's `.hip_fatbin` section as a
clang offload bundle: the magic `__CLANG_OFFLOAD_BUNDLE__`, a little-endian uint64 entry count,
then per entry uint64 offset, uint64 size, uint64 id length and the id, e.g.
`hipv4-amdgcn-amd-amdhsa--gfx942`. The linker concatenates the sections of all units, each bundle
aligned, so a linked binary holds one bundle per unit. Every code object is itself an ELF file
whose header names the GPU it was built for (e_machine EM_AMDGPU, the EF_AMDGPU_MACH bits of
e_flags); listing those, rather than only the ids, shows what the GPU loader will see.

Usage: code_objects.py BINARY...            prints `file bundle arch id` lines
       code_objects.py --require ARCH,... BINARY...   exits 1 unless every bundle has every ARCH
"""
import argparse
import struct
import sys

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
EM_AMDGPU = 224
EF_AMDGPU_MACH_MASK = 0xFF

# EF_AMDGPU_MACH values of LLVM's ELF.h for the architectures ssimd builds or might meet.
AMDGPU_MACH_NAMES = {
    0x2F: "gfx908",
    0x30: "gfx90c",
    0x33: "gfx1010",
    0x36: "gfx1030",
    0x3F: "gfx90a",
    0x40: "gfx940",
    0x41: "gfx1100",
    0x42: "gfx1101",
    0x43: "gfx1102",
    0x44: "gfx1103",
    0x4B: "gfx941",
    0x4C: "gfx942",
}


class FormatError(Exception):
    pass


def elf_sections(data):
    """(name, bytes) of every section of a 64-bit little-endian ELF file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise FormatError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, _, _, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        headers.append((name, kind, offset, size))
    _, _, strtab_offset, _ = headers[shstrndx]
    sections = []
    for name, kind, offset, size in headers:
        end = data.index(b"\0", strtab_offset + name)
        label = data[strtab_offset + name:end].decode()
        contents = b"" if kind == 8 else data[offset:offset + size]  # 8: SHT_NOBITS
        sections.append((label, contents))
    return sections


def code_object_arch(blob):
    """The GPU a code object's ELF header names, e.g. 'gfx942'."""
    if blob[:4] != b"\x7fELF":
        raise FormatError("code object is not an ELF file (compressed bundles are not read)")
    machine, = struct.unpack_from("<H", blob, 0x12)
    if machine != EM_AMDGPU:
        raise FormatError("code object is for ELF machine %d, not AMDGPU" % machine)
    flags, = struct.unpack_from("<I", blob, 0x30)
    mach = flags & EF_AMDGPU_MACH_MASK
    return AMDGPU_MACH_NAMES.get(mach, "EF_AMDGPU_MACH=0x%x" % mach)


def parse_bundles(section):
    """Each bundle in a .hip_fatbin section as a list of (id, arch from the code object or None)."""
    bundles = []
    start = section.find(BUNDLE_MAGIC)
    while start >= 0:
        pos = start + len(BUNDLE_MAGIC)
        count, = struct.unpack_from("<Q", section, pos)
        pos += 8
        entries = []
        end = pos
        for _ in range(count):
            offset, size, id_length = struct.unpack_from("<QQQ", section, pos)
            pos += 24
            bundle_id = section[pos:pos + id_length].decode()
            pos += id_length
            blob = section[start + offset:start + offset + size]
            if start + offset + size > len(section):
                raise FormatError("bundle entry %s runs past its section" % bundle_id)
            end = max(end, start + offset + size)
            arch = code_object_arch(blob) if size and not bundle_id.startswith("host-") else None
            entries.append((bundle_id, arch))
        bundles.append(entries)
        start = section.find(BUNDLE_MAGIC, max(end, pos))
    return bundles


def list_code_objects(data):
    bundles = []
    for name, contents in elf_sections(data):
        if name == ".hip_fatbin":
            bundles.extend(parse_bundles(contents))
    return bundles


def missing_archs(bundles, required):
    """Problems, one string each: no bundle at all, or a bundle without a required architecture,
    or an id whose code object names a different GPU."""
    if not bundles:
        return ["no HIP fat binary (.hip_fatbin) found"]
    problems = []
    for number, entries in enumerate(bundles):
        for bundle_id, arch in entries:
            named = bundle_id.rsplit("--", 1)[-1].split(":")[0]
            if arch is not None and arch != named:
                problems.append("bundle %d: %s holds code for %s" % (number, bundle_id, arch))
        present = {arch for _, arch in entries if arch}
        for want in required:
            if want not in present:
                problems.append("bundle %d has no code object for %s (has %s)" %
                                (number, want, ", ".join(sorted(present)) or "none"))
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--require", default="", help="comma-separated architectures")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args(argv)
    required = [a for a in args.require.split(",") if a]
    ok = True
    for path in args.binaries:
        with open(path, "rb") as f:
            bundles = list_code_objects(f.read())
        for number, entries in enumerate(bundles):
            for bundle_id, arch in entries:
                print("%s bundle %d %s %s" % (path, number, arch or "-", bundle_id))
        for problem in missing_archs(bundles, required):
            print("%s: %s" % (path, problem), file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
