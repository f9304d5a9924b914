package dev.zklock.sample;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Names this instance by the address and port it serves on, so that orders and job
 * runs show which instance handled them.
 */
@Component
public class InstanceName {

	private final Environment environment;

	InstanceName(Environment environment) {
		this.environment = environment;
	}

	/**
	 * The name, such as {@code 127.0.0.1:8080}.
	 * @return the name
	 */
	public String get() {
		String address = this.environment.getProperty("server.address", "localhost");
		String port = this.environment.getProperty("local.server.port",
				this.environment.getProperty("server.port", "8080"));
		return address + ":" + port;
	}

}
