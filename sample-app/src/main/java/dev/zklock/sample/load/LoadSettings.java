package dev.zklock.sample.load;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the load script does: place {@code orders} concurrent orders of one unit each,
 * spread round-robin over the {@code targets}, against a fresh product with
 * {@code stock} units.
 *
 * @param targets the base URIs of the instances
 * @param orders the number of orders to place
 * @param stock the units of the product before the first order
 * @param concurrency the number of orders in flight at once
 * @param warehouse the warehouse
 * @param sku the product, new for each run by default
 * @param requestTimeout the longest wait for one answer
 */
public record LoadSettings(List<URI> targets, int orders, int stock, int concurrency, String warehouse, String sku,
		Duration requestTimeout) {

	/**
	 * The instances the script targets when none are given: two instances started as
	 * docs/sample.md shows.
	 */
	public static final List<URI> DEFAULT_TARGETS = List.of(URI.create("http://127.0.0.1:8081"),
			URI.create("http://127.0.0.1:8082"));

	/**
	 * Check the settings.
	 */
	public LoadSettings {
		targets = List.copyOf(targets);
		if (targets.isEmpty()) {
			throw new IllegalArgumentException("Give at least one target, such as http://127.0.0.1:8080");
		}
		if (orders < 1 || stock < 0 || concurrency < 1) {
			throw new IllegalArgumentException("--orders and --concurrency must be at least 1 and --stock at least 0, "
					+ "got orders=" + orders + ", stock=" + stock + ", concurrency=" + concurrency);
		}
	}

	/**
	 * The defaults: 200 orders on 50 units, all in flight at once, against the given
	 * targets.
	 * @param targets the base URIs of the instances
	 * @return the settings
	 */
	public static LoadSettings defaults(List<URI> targets) {
		return new LoadSettings(targets, 200, 50, 200, "berlin", "load-" + System.currentTimeMillis(),
				Duration.ofSeconds(30));
	}

	/**
	 * Read command-line arguments: base URIs, and {@code --orders=N},
	 * {@code --stock=N}, {@code --concurrency=N}, {@code --warehouse=NAME},
	 * {@code --sku=NAME}.
	 * @param args the arguments
	 * @return the settings
	 * @throws IllegalArgumentException naming an argument that is not understood
	 */
	public static LoadSettings parse(String... args) {
		List<URI> targets = new ArrayList<>();
		LoadSettings settings = defaults(DEFAULT_TARGETS);
		for (String arg : args) {
			if (!arg.startsWith("--")) {
				for (String target : arg.split(",")) {
					if (!target.isBlank()) {
						targets.add(URI.create(target.trim()));
					}
				}
				continue;
			}
			int equals = arg.indexOf('=');
			if (equals < 0) {
				throw new IllegalArgumentException("Argument '" + arg + "' needs a value, such as --orders=200");
			}
			String name = arg.substring(2, equals);
			String value = arg.substring(equals + 1);
			settings = switch (name) {
				case "orders" -> settings.with(number(arg, value), settings.stock, settings.concurrency);
				case "stock" -> settings.with(settings.orders, number(arg, value), settings.concurrency);
				case "concurrency" -> settings.with(settings.orders, settings.stock, number(arg, value));
				case "warehouse" -> new LoadSettings(settings.targets, settings.orders, settings.stock,
						settings.concurrency, value, settings.sku, settings.requestTimeout);
				case "sku" -> new LoadSettings(settings.targets, settings.orders, settings.stock, settings.concurrency,
						settings.warehouse, value, settings.requestTimeout);
				default -> throw new IllegalArgumentException("Unknown argument '" + arg + "'; use base URIs and "
						+ "--orders=, --stock=, --concurrency=, --warehouse=, --sku=");
			};
		}
		return targets.isEmpty() ? settings : settings.withTargets(targets);
	}

	/**
	 * Copy with other targets.
	 * @param targets the base URIs
	 * @return the settings
	 */
	public LoadSettings withTargets(List<URI> targets) {
		return new LoadSettings(targets, this.orders, this.stock, this.concurrency, this.warehouse, this.sku,
				this.requestTimeout);
	}

	/**
	 * Copy with other numbers.
	 * @param orders the number of orders
	 * @param stock the units in stock
	 * @param concurrency the orders in flight at once
	 * @return the settings
	 */
	public LoadSettings with(int orders, int stock, int concurrency) {
		return new LoadSettings(this.targets, orders, stock, concurrency, this.warehouse, this.sku,
				this.requestTimeout);
	}

	private static int number(String arg, String value) {
		try {
			return Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("Argument '" + arg + "' needs a whole number", ex);
		}
	}

}
