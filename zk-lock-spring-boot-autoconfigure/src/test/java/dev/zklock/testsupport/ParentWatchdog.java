package dev.zklock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Main class of the server processes the fixtures launch: runs another main class and
 * halts the process as soon as its standard input closes, which happens when the test
 * JVM that launched it exits, however it exits. No server process outlives its test run.
 * <p>
 * Arguments: the main class to run, then its arguments.
 */
public final class ParentWatchdog {

	/**
	 * Exit status when the parent has gone.
	 */
	static final int PARENT_GONE = 97;

	private ParentWatchdog() {
	}

	/**
	 * Run the main class given as first argument.
	 * @param args the main class, then its arguments
	 * @throws Exception when the main class cannot be run
	 */
	public static void main(String[] args) throws Exception {
		if (args.length == 0) {
			throw new IllegalArgumentException("Usage: ParentWatchdog <main class> [arguments...]");
		}
		Thread watchdog = new Thread(ParentWatchdog::haltWhenStdinCloses, "parent-watchdog");
		watchdog.setDaemon(true);
		watchdog.start();
		Method main = Class.forName(args[0]).getMethod("main", String[].class);
		main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
	}

	private static void haltWhenStdinCloses() {
		InputStream in = System.in;
		try {
			while (in.read() != -1) {
				// the parent never writes; anything read is ignored
			}
		}
		catch (IOException ex) {
			// a broken pipe means the same as end of input
		}
		Runtime.getRuntime().halt(PARENT_GONE);
	}

}
