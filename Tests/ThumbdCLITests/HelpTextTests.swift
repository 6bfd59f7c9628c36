import ConsoleText
import Testing
import TestSupport

/// Help prose is joined into one line per paragraph, so that it wraps evenly at any width.
struct HelpTextTests {
    @Test func paragraphsBecomeOneLineEach() {
        let text = """
            The format is read from the first bytes,
            never from the name.

            Examples:
              thumbd thumbnail a.jpg -o b.jpg \\
                  --size 200
            Exit status: 0 when done,
            1 when any failed.
            - a list item
            - another, whose text
              goes on indented
            """
        #expect(HelpText.reflowed(text) == """
            The format is read from the first bytes, never from the name.

            Examples:
              thumbd thumbnail a.jpg -o b.jpg \\
                  --size 200
            Exit status: 0 when done, 1 when any failed.
            - a list item
            - another, whose text
              goes on indented
            """)
    }

    @Test func aStubLineIsFound() {
        let ragged = "OVERVIEW: Make thumbnails.\n\nThe format of each input is read. Photos are decoded\nat the smallest size.\n"
        #expect(HelpPages.stubLines(in: ragged) == ["The format of each input is read. Photos are decoded"])
        #expect(HelpPages.stubLines(in: "OVERVIEW: Make thumbnails.\n\nExamples:\n  thumbd a.jpg\n").isEmpty)
    }

    @Test func noHelpPageHasStubLines() throws {
        for command in try HelpPages.commands(of: CLI.executable) {
            let stubs = HelpPages.stubLines(in: try HelpPages.page(of: CLI.executable, command))
            #expect(stubs.isEmpty, "thumbd \(command.joined(separator: " ")) --help: \(stubs)")
        }
    }
}
