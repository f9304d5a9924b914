package dev.zklock.aop;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * What the main method of a Spring Boot worker JVM needs: its {@code --name=value}
 * arguments, and a quiet, non-web application whose shutdown the test drives through
 * commands rather than a shutdown hook.
 */
public final class WorkerApplications {

	private WorkerApplications() {
	}

	/**
	 * The worker's arguments.
	 * @param args the {@code --name=value} arguments
	 * @return the values by name
	 */
	public static Map<String, String> arguments(String[] args) {
		Map<String, String> arguments = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			arguments.put(arg.substring(2, equals), arg.substring(equals + 1));
		}
		return arguments;
	}

	/**
	 * A builder of the worker's application.
	 * @param configuration the application's configuration class
	 * @param properties its properties
	 * @return the builder, to be run
	 */
	public static SpringApplicationBuilder builder(Class<?> configuration, Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>(properties);
		all.put("spring.main.register-shutdown-hook", "false");
		all.put("spring.docker.compose.enabled", "false");
		return new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(all);
	}

}
