// The kiosk's window: the display, the region the hand covers (faint), the fingers, the popover
// beside them, and a banner while handyd is not there. Everything it shows comes from the `kiosk`
// object (examples/qt/popover.py), which reads handyd and places the popover with handyd.placement.
import QtQuick
import QtQuick.Shapes

Window {
    id: window
    width: kiosk.displayWidth
    height: kiosk.displayHeight
    visible: true
    color: "white"
    title: kiosk.title

    // The covered region, in window pixels (the view is the whole window).
    // (Sizes from `window`, not `parent`: the content item takes the window's size only after the
    // first frame, and the first screenshot may come before it.)
    Shape {
        width: window.width
        height: window.height
        visible: kiosk.region.length >= 3
        ShapePath {
            fillColor: "#e6ecf5"
            strokeColor: "#b8c4d6"
            strokeWidth: 1
            PathPolyline { path: kiosk.region }
        }
    }

    // The fingers: filled while down, a ring once lifted (until the next touch).
    Repeater {
        model: kiosk.fingers
        Rectangle {
            x: modelData.x - modelData.r
            y: modelData.y - modelData.r
            width: 2 * modelData.r
            height: 2 * modelData.r
            radius: modelData.r
            color: modelData.lifted ? "transparent" : "#f4a261"
            border.color: "#c0652a"
            border.width: 2
        }
    }

    // The popover, where handyd.placement put it; its text names the rule.
    Rectangle {
        id: popover
        visible: kiosk.popover.visible === true
        x: kiosk.popover.x || 0
        y: kiosk.popover.y || 0
        width: kiosk.popover.width || 0
        height: kiosk.popover.height || 0
        radius: 8
        color: "#264653"
        Text {
            anchors.centerIn: parent
            horizontalAlignment: Text.AlignHCenter
            color: "white"
            font.pixelSize: 14
            text: kiosk.popover.text || ""
        }
    }

    // While handyd is not there (not started yet, restarting): say so, and that it is retried.
    Rectangle {
        visible: !kiosk.connected
        x: 40
        y: (window.height - height) / 2
        width: window.width - 80
        height: banner.contentHeight + 32
        radius: 10
        color: "#fff3cd"
        border.color: "#e0b44c"
        Text {
            id: banner
            anchors.fill: parent
            anchors.margins: 16
            wrapMode: Text.Wrap
            horizontalAlignment: Text.AlignHCenter
            verticalAlignment: Text.AlignVCenter
            color: "#5c4400"
            font.pixelSize: 18
            text: kiosk.status
        }
    }

    // Once connected: the device, small, in a corner.
    Text {
        visible: kiosk.connected
        x: 8
        y: window.height - height - 8
        color: "#8a94a6"
        font.pixelSize: 12
        text: kiosk.status
    }
}
