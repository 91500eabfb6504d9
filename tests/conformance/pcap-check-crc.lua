-- SPDX-License-Identifier: GPL-2.0-or-later
-- pcap-check.py's MPA CRC verdict as a field, so one tshark pass gives it with
-- the others. Wireshark's MPA dissector adds iwarp_mpa.crc_check for every
-- checked FPDU CRC, good or bad: the verdict is only in the item's text
-- ("... (Bad CRC32, should be ...)"), and it has no expert info for it.
local crc_check = Field.new("iwarp_mpa.crc_check")
local proto = Proto("rnic_mpa_crc", "rnic pcap-check: MPA CRC verdict")
local bad = ProtoField.uint32("rnic_mpa_crc.bad", "Bad MPA CRCs in this frame")
proto.fields = { bad }

function proto.dissector(_, _, tree)
    if not tree then
        return
    end
    local n = 0
    for _, fi in ipairs({ crc_check() }) do
        if string.find(fi.display, "Bad CRC32", 1, true) then
            n = n + 1
        end
    end
    if n > 0 then
        tree:add(bad, n)
    end
end

register_postdissector(proto)
