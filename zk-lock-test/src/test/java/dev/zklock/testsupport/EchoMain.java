package dev.zklock.testsupport;

/**
 * A main class for {@link JvmProcessTests}: echoes every command it receives until
 * {@code exit}.
 */
public final class EchoMain {

	private EchoMain() {
	}

	/**
	 * Echo commands.
	 * @param args printed first
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		System.out.println("started with " + String.join(" ", args));
		while (true) {
			String command = ParentWatchdog.commands().take();
			if (command.equals("exit")) {
				System.exit(3);
			}
			System.out.println("echo: " + command);
		}
	}

}
