"""code_objects.py on synthetic fat binaries: it runs without a GPU toolchain, so the default build
checks the reader that the ROCm build's hip_code_objects_test relies on."""
import struct
import unittest

import code_objects


def amdgpu_code_object(mach):
    """The first 64 bytes of an AMDGPU ELF header naming EF_AMDGPU_MACH `mach`."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<H", header, 0x12, code_objects.EM_AMDGPU)
    struct.pack_into("<I", header, 0x30, 0x500 | mach)  # feature bits above the mach byte
    return bytes(header)


def bundle(entries):
    """A clang offload bundle of (id, blob) entries."""
    table_size = len(code_objects.BUNDLE_MAGIC) + 8 + sum(24 + len(i) for i, _ in entries)
    table = bytearray(code_objects.BUNDLE_MAGIC + struct.pack("<Q", len(entries)))
    blobs = bytearray()
    for bundle_id, blob in entries:
        table += struct.pack("<QQQ", table_size + len(blobs), len(blob), len(bundle_id))
        table += bundle_id.encode()
        blobs += blob
    return bytes(table + blobs)


def elf_with_section(name, contents):
    """A minimal 64-bit ELF file with a null section, `name` and the section-name table."""
    names = b"\0" + name.encode() + b"\0.shstrtab\0"
    data_offset = 64
    names_offset = data_offset + len(contents)
    shoff = names_offset + len(names)
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 0x28, shoff)
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 2)
    sections = bytearray(64)  # SHT_NULL
    sections += struct.pack("<IIQQQQ", 1, 1, 0, 0, data_offset, len(contents)).ljust(64, b"\0")
    sections += struct.pack("<IIQQQQ", 2 + len(name), 3, 0, 0, names_offset,
                            len(names)).ljust(64, b"\0")
    return bytes(header) + contents + names + bytes(sections)


GFX90A, GFX942, GFX1100 = 0x3F, 0x4C, 0x41


class CodeObjectsTest(unittest.TestCase):

    def test_lists_every_code_object_of_every_bundle_by_its_elf_header(self):
        first = bundle([("host-x86_64-unknown-linux--", b""),
                        ("hipv4-amdgcn-amd-amdhsa--gfx90a", amdgpu_code_object(GFX90A)),
                        ("hipv4-amdgcn-amd-amdhsa--gfx942", amdgpu_code_object(GFX942))])
        second = bundle([("hipv4-amdgcn-amd-amdhsa--gfx1100", amdgpu_code_object(GFX1100))])
        # The linker pads between units' bundles.
        data = elf_with_section(".hip_fatbin", first + b"\0" * 40 + second)
        self.assertEqual(code_objects.list_code_objects(data), [
            [("host-x86_64-unknown-linux--", None),
             ("hipv4-amdgcn-amd-amdhsa--gfx90a", "gfx90a"),
             ("hipv4-amdgcn-amd-amdhsa--gfx942", "gfx942")],
            [("hipv4-amdgcn-amd-amdhsa--gfx1100", "gfx1100")],
        ])

    def test_a_bundle_missing_an_architecture_is_reported(self):
        only_mi200 = bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", amdgpu_code_object(GFX90A))])
        bundles = code_objects.list_code_objects(elf_with_section(".hip_fatbin", only_mi200))
        problems = code_objects.missing_archs(bundles, ["gfx90a", "gfx942"])
        self.assertEqual(len(problems), 1)
        self.assertIn("no code object for gfx942", problems[0])

    def test_an_id_whose_code_object_names_another_gpu_is_reported(self):
        lying = bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", amdgpu_code_object(GFX90A))])
        bundles = code_objects.list_code_objects(elf_with_section(".hip_fatbin", lying))
        problems = code_objects.missing_archs(bundles, [])
        self.assertEqual(len(problems), 1)
        self.assertIn("holds code for gfx90a", problems[0])

    def test_a_binary_without_device_code_is_reported(self):
        data = elf_with_section(".text", b"\x90" * 16)
        self.assertEqual(code_objects.list_code_objects(data), [])
        self.assertEqual(code_objects.missing_archs([], ["gfx942"]),
                         ["no HIP fat binary (.hip_fatbin) found"])

    def test_a_code_object_for_another_machine_is_refused(self):
        not_amdgpu = bytearray(amdgpu_code_object(GFX942))
        struct.pack_into("<H", not_amdgpu, 0x12, 62)  # EM_X86_64
        data = elf_with_section(
            ".hip_fatbin", bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", bytes(not_amdgpu))]))
        with self.assertRaises(code_objects.FormatError):
            code_objects.list_code_objects(data)


if __name__ == "__main__":
    unittest.main()
