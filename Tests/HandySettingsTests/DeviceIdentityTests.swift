import HandySettings
import Testing

/// The wire id that survives replug and reboot (DeviceIdentity.swift), from udev properties alone.
@Suite struct DeviceIdentityTests {
    @Test func thePortAndTheNameMakeTheId() {
        let id = DeviceIdentity.id(
            name: "ELAN Touchscreen",
            properties: [
                "ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0", "ID_SERIAL": "ELAN_Touchscreen",
                "DEVNAME": "/dev/input/event5",
            ])
        #expect(id == "elan-touchscreen@pci-0000:00:14.0-usb-0:2:1.0")
    }

    @Test func withoutAPortTheSerialThenVirtual() {
        #expect(
            DeviceIdentity.id(name: "Wacom HID 5256 Finger", properties: ["ID_SERIAL": "Wacom_HID_5256"])
                == "wacom-hid-5256-finger@Wacom_HID_5256")
        // udev's usb_id says "noserial" when the device has none: that names nothing.
        #expect(DeviceIdentity.id(name: "x", properties: ["ID_SERIAL": "noserial"]) == "x@virtual")
        #expect(
            DeviceIdentity.id(name: "handyd-test touchscreen unplug", properties: [:])
                == "handyd-test-touchscreen-unplug@virtual")
        #expect(DeviceIdentity.id(name: "", properties: [:]) == "input@virtual")
    }

    @Test func theIdDoesNotDependOnTheNode() {
        let before = DeviceIdentity.id(
            name: "T", properties: ["ID_PATH": "platform-i2c", "DEVNAME": "/dev/input/event5", "MINOR": "69"])
        let after = DeviceIdentity.id(
            name: "T", properties: ["ID_PATH": "platform-i2c", "DEVNAME": "/dev/input/event9", "MINOR": "73"])
        #expect(before == after)
        #expect(!before.contains("event"))
    }

    @Test func handydIdWinsWhenValid() {
        let props = ["ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0", "HANDYD_ID": "front-left"]
        #expect(DeviceIdentity.id(name: "T", properties: props) == "front-left")
        let c = DeviceConfiguration(properties: props)
        #expect(c.id == "front-left" && c.problems.isEmpty && c.applied.contains("HANDYD_ID"))
        for bad in ["", "has space", "quote\"", String(repeating: "a", count: 65), "#2"] {
            let p = ["ID_PATH": "pci-1", "HANDYD_ID": bad]
            #expect(DeviceIdentity.id(name: "T", properties: p) == "t@pci-1", "\(bad)")
            let c = DeviceConfiguration(properties: p)
            #expect(c.id == nil && c.problems.count == 1 && c.problems[0].hasPrefix("HANDYD_ID="), "\(bad)")
        }
    }

    @Test func oddCharactersCollapseToOneDash() {
        #expect(
            DeviceIdentity.id(
                name: "  Goodix  Capacitive TouchScreen \n", properties: ["ID_PATH": "platform-i8042 serio 1"])
                == "goodix-capacitive-touchscreen@platform-i8042-serio-1")
        #expect(DeviceIdentity.id(name: "Tüch #1", properties: [:]) == "t-ch-1@virtual")
    }

    @Test func aSecondDeviceWithTheSameIdGetsASuffix() {
        #expect(DeviceIdentity.unique("t@virtual", among: []) == "t@virtual")
        #expect(DeviceIdentity.unique("t@virtual", among: ["t@virtual"]) == "t@virtual#2")
        #expect(DeviceIdentity.unique("t@virtual", among: ["t@virtual", "t@virtual#2"]) == "t@virtual#3")
    }
}
