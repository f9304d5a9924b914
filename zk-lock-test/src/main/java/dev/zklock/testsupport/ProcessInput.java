package dev.zklock.testsupport;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * The standard input of a launched {@link JvmProcess}, on which the test sends one
 * command per line for {@link ParentWatchdog#commands()} to read.
 */
final class ProcessInput {

	private final BufferedWriter writer;

	ProcessInput(Process process) {
		this.writer = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
	}

	/**
	 * Write one line and flush it.
	 * @param line the line, without a line break
	 * @param name the process's name, for error messages
	 * @throws IllegalArgumentException when the line holds a line break
	 * @throws IllegalStateException when the line cannot be written
	 */
	void send(String line, String name) {
		requireOneLine(line);
		try {
			synchronized (this.writer) {
				this.writer.write(line);
				this.writer.newLine();
				this.writer.flush();
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not send '" + line + "' to " + name + ": " + ex, ex);
		}
	}

	/**
	 * Check that a command is one line, before anything else about it.
	 * @param line the command
	 * @throws IllegalArgumentException when it holds a line break
	 */
	static void requireOneLine(String line) {
		if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
			throw new IllegalArgumentException("A command is one line; got " + line);
		}
	}

}
