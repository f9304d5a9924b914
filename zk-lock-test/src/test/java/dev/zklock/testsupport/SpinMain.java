package dev.zklock.testsupport;

/**
 * A main class for {@link JvmProcessTests}: keeps as many threads busy as its argument
 * says, so that more threads want a CPU than there are CPUs.
 */
public final class SpinMain {

	private static volatile long sink;

	private SpinMain() {
	}

	/**
	 * Spin.
	 * @param args the number of busy threads
	 * @throws InterruptedException when interrupted
	 */
	public static void main(String[] args) throws InterruptedException {
		int threads = Integer.parseInt(args[0]);
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(SpinMain::spin, "spin-" + i);
			thread.setDaemon(true);
			thread.start();
		}
		System.out.println("spinning");
		ParentWatchdog.commands().take();
	}

	private static void spin() {
		long value = 0;
		while (true) {
			value++;
			if ((value & 0xFFFFF) == 0) {
				sink = value;
			}
		}
	}

}
