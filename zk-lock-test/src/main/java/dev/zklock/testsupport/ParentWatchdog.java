package dev.zklock.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Main class of the processes the fixtures launch ({@link JvmProcess}): runs another
 * main class and halts the process as soon as its standard input closes, which happens
 * when the test JVM that launched it exits, however it exits. No process outlives its
 * test run. The lines the test JVM sends ({@link JvmProcess#send(String)}) are queued
 * in {@link #commands()} for the main class to read.
 * <p>
 * Arguments: the main class to run, then its arguments.
 */
public final class ParentWatchdog {

	/**
	 * Exit status when the parent has gone.
	 */
	static final int PARENT_GONE = 97;

	private static final BlockingQueue<String> commands = new LinkedBlockingQueue<>();

	private ParentWatchdog() {
	}

	/**
	 * The lines received on standard input, in order. Only a main class run by this
	 * watchdog receives any.
	 * @return the queue of lines
	 */
	public static BlockingQueue<String> commands() {
		return commands;
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
		try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = in.readLine()) != null) {
				commands.add(line);
			}
		}
		catch (IOException ex) {
			// a broken pipe means the same as end of input
		}
		Runtime.getRuntime().halt(PARENT_GONE);
	}

}
